"""Reference values for tests/it/stats_reference.rs (SciPy 1.17.1, statsmodels 0.15.0).
Run: python3 tools/stats_reference.py"""
import numpy as np, scipy.stats as ss, statsmodels.api as sm
from statsmodels.stats.multitest import multipletests
np.set_printoptions(precision=17)
def r(v): return repr(float(v))
cases = {
 "ties": ([1,2,2,3,4,5,5,6],[2,1,4,4,3,7,6,8]),
 "n3": ([1,2,3],[3,1,2]),
 "monotone": ([1,2,3,4,5],[1,4,9,16,25]),
 "negative": ([1,2,3,4,5,6,7],[10,8,9,5,4,2,1]),
 "both_ties": ([1,1,2,2,3,3],[5,6,5,7,9,9]),
 "constant": ([1,2,3,4],[5,5,5,5]),
}
for k,(x,y) in cases.items():
    res = ss.spearmanr(x,y)
    print("spearman", k, r(res.statistic), r(res.pvalue))
print("rankdata", ss.rankdata([3,1,4,1,5,9,2,6,5,3,5]).tolist())
p = [0.01,0.04,0.03,0.005,0.2,0.04,0.5,0.9]
print("bh", [r(v) for v in multipletests(p, method='fdr_bh')[1]])
for d in ([1,2,3,4,100],[4,1,3,2]):
    print("median/mad", d, r(np.median(d)), r(ss.median_abs_deviation(d)))
x = np.array([1,2,4,8,16,32,1,2,4,8,16,32],float)
y = np.array([5.1,7.2,10.9,19.5,35.0,66.8,4.8,6.9,11.3,18.7,34.1,67.9])
fs = {"constant":None,"log":np.log(x),"x":x,"xlogx":x*np.log(x),"x2":x*x}
for k,f in fs.items():
    X = np.ones((len(x),1)) if f is None else sm.add_constant(f)
    m = sm.OLS(y,X).fit(); kk = X.shape[1]; n=len(y)
    aicc = m.aic + 2*kk*(kk+1)/(n-kk-1)
    print("fit", k, [r(v) for v in m.params], [r(v) for v in m.bse], r(m.rsquared), r(np.sqrt(m.ssr/n)), r(aicc))
m = sm.OLS(np.log(y), sm.add_constant(np.log(x))).fit()
print("power", r(np.exp(m.params[0])), r(m.params[1]), r(m.bse[1]), [r(v) for v in m.conf_int(0.05)[1]], r(m.rsquared))
for d in ([12.1,15.3,9.8,20.4,11.0,14.2,13.3],[10.0,12.0,30.0],[1.0,3.0],[5.0,5.0,5.0,6.0,9.0,40.0]):
    lo=[];hi=[]
    for seed in range(200):
        ci = ss.bootstrap((np.array(d),), np.median, n_resamples=1999, method='BCa', rng=np.random.default_rng(seed)).confidence_interval
        lo.append(ci.low); hi.append(ci.high)
    lo=np.array(lo); hi=np.array(hi)
    print("bca", d, "low min/max/mean", r(lo.min()), r(lo.max()), r(lo.mean()), "high", r(hi.min()), r(hi.max()), r(hi.mean()))
