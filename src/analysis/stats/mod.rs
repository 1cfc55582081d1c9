//! Statistics used by the analyses (each function documents its reference: SciPy, statsmodels,
//! or a paper). STUB: being written.
