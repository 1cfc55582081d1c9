//! Test support: the resident memory of a browser started by chromedriver, read from `/proc`
//! (Linux). Chromium's processes are the descendants of the chromedriver process (found through
//! the parent pid in `/proc/<pid>/stat`); the *tab* is its renderer processes
//! (`--type=renderer` on their command line: the page and its dedicated Web Workers run in the
//! renderer of their site). A [`Sampler`] polls every 250 ms and keeps the peaks.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Pid → parent pid of every process visible in `/proc`.
fn parents() -> Vec<(u32, u32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            let after = &stat[stat.rfind(')')? + 1..];
            let ppid = after.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect()
}

/// Every descendant of `root` (not `root` itself).
pub fn descendants(root: u32) -> Vec<u32> {
    let all = parents();
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for &(pid, ppid) in &all {
            if ppid == p && !out.contains(&pid) {
                out.push(pid);
                frontier.push(pid);
            }
        }
    }
    out
}

/// `VmRSS` of `pid`, bytes (0 when it is gone).
pub fn rss_bytes(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            let kb: u64 = line[6..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(0)
}

fn is_renderer(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        // A process forked by Chromium's zygote rewrites its command line as one string with
        // spaces, so the flag is searched, not split out.
        .map(|c| c.windows(15).any(|w| w == b"--type=renderer"))
        .unwrap_or(false)
}

/// CPU time (user + system, every thread) of `pid` so far, seconds (0 when it is gone):
/// fields 14 and 15 of `/proc/<pid>/stat`, in clock ticks of 1/100 s (Linux `USER_HZ`).
pub fn cpu_s(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let after = &stat[stat.rfind(')')? + 1..];
            let mut f = after.split_whitespace();
            // After `comm`: state is field 3, utime 14, stime 15.
            let utime: f64 = f.nth(11)?.parse().ok()?;
            let stime: f64 = f.next()?.parse().ok()?;
            Some((utime + stime) / 100.0)
        })
        .unwrap_or(0.0)
}

/// CPU time so far of the renderer processes under `root` (the page and its workers, which
/// are threads of the renderer), seconds.
pub fn tab_cpu_s(root: u32) -> f64 {
    descendants(root)
        .into_iter()
        .filter(|&p| is_renderer(p))
        .map(cpu_s)
        .sum()
}

/// (renderer processes, all processes) RSS under `root`, bytes.
pub fn browser_rss(root: u32) -> (u64, u64) {
    let mut tab = 0;
    let mut all = 0;
    for pid in descendants(root) {
        let rss = rss_bytes(pid);
        all += rss;
        if is_renderer(pid) {
            tab += rss;
        }
    }
    (tab, all)
}

/// Polls [`browser_rss`] of `root` in a background thread until dropped or [`Sampler::stop`].
pub struct Sampler {
    stop: Arc<AtomicBool>,
    tab_peak: Arc<AtomicU64>,
    all_peak: Arc<AtomicU64>,
}

impl Sampler {
    /// Starts sampling the browser under chromedriver process `root`.
    pub fn start(root: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let tab_peak = Arc::new(AtomicU64::new(0));
        let all_peak = Arc::new(AtomicU64::new(0));
        let (s, t, a) = (stop.clone(), tab_peak.clone(), all_peak.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                let (tab, all) = browser_rss(root);
                t.fetch_max(tab, Ordering::SeqCst);
                a.fetch_max(all, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(250));
            }
        });
        Sampler {
            stop,
            tab_peak,
            all_peak,
        }
    }

    /// Peak RSS so far: (the tab's renderer processes, every browser process), bytes.
    pub fn peaks(&self) -> (u64, u64) {
        (
            self.tab_peak.load(Ordering::SeqCst),
            self.all_peak.load(Ordering::SeqCst),
        )
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}
