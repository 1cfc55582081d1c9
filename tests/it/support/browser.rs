//! Test harness for the browser tests: a static file server for `dist/` (on 127.0.0.1, serving
//! under any path prefix, logging every request), chromedriver on a free port, a fantoccini
//! client with Chrome's performance log enabled, and a reader for that log.
//!
//! Every request Chromium makes — the page's, the Web Worker's, the browser's own — goes
//! through a logging HTTP proxy on 127.0.0.1 ([`proxy_log`]): Chromium starts with
//! `--proxy-server` pointing at it and `--proxy-bypass-list=<-loopback>`, so even loopback
//! requests pass it. The proxy forwards only to 127.0.0.1 and answers anything else with 403
//! (after logging it, so [`assert_local_only`] fails). [`assert_visible`] checks what a person
//! would see: displayed, a non-empty box inside the viewport, not transparent or hidden.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

/// One request the server answered: (method, path as requested, status).
pub type Logged = (String, String, u16);

/// A static file server over `root` on 127.0.0.1. A path starting with `prefix` has it
/// stripped (so the site can be opened under a sub-path); `/` and directories serve
/// `index.html`. `.wasm` is `application/wasm`, `.js` `text/javascript`.
pub struct Server {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Logged>>>,
    /// Set by [`Server::stop`]: connections are then closed unanswered.
    stopped: Arc<std::sync::atomic::AtomicBool>,
    /// Set by [`Server::hold`]: requests whose path ends with it wait for [`Server::release`].
    held: Arc<Mutex<Option<String>>>,
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "wasm" => "application/wasm",
        "js" => "text/javascript",
        "html" => "text/html; charset=utf-8",
        "css" => "text/css",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

fn serve_one(
    mut stream: TcpStream,
    root: &Path,
    prefix: &str,
    (cors, cache): (bool, &str),
    log: &Mutex<Vec<Logged>>,
    held: &Mutex<Option<String>>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    // Drain the headers.
    loop {
        let mut h = String::new();
        match reader.read_line(&mut h) {
            Ok(0) | Err(_) => break,
            Ok(_) if h == "\r\n" || h == "\n" => break,
            Ok(_) => {}
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let rel = path
        .strip_prefix(prefix)
        .or_else(|| path.strip_prefix(prefix.trim_end_matches('/')))
        .unwrap_or(path)
        .trim_start_matches('/');
    let mut file = root.join(rel);
    if rel.is_empty() || file.is_dir() {
        file = file.join("index.html");
    }
    // A held path waits (at most 5 minutes) before any answer, as a download that has not
    // started yet.
    let t0 = std::time::Instant::now();
    while t0.elapsed() < Duration::from_secs(300)
        && held
            .lock()
            .unwrap()
            .as_deref()
            .is_some_and(|h| path.ends_with(h))
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    let safe = !rel.split('/').any(|c| c == "..");
    let (status, body, ctype) = match (safe, std::fs::read(&file)) {
        (true, Ok(b)) => (200u16, b, content_type(&file)),
        _ => (404u16, b"not found".to_vec(), "text/plain"),
    };
    log.lock()
        .unwrap()
        .push((method.clone(), target.clone(), status));
    eprintln!("[server] {method} {target} -> {status}");
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let cors = if cors {
        "Access-Control-Allow-Origin: *\r\n"
    } else {
        ""
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: {cache}\r\n{cors}Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = stream.write_all(&body);
    }
    let _ = stream.flush();
}

impl Server {
    /// Starts serving `root` in background threads.
    pub fn start(root: PathBuf, prefix: &'static str) -> Server {
        Server::start_with(root, prefix, false, "no-store")
    }

    /// [`Server::start`] whose answers the browser may keep as GitHub Pages' may be kept:
    /// `Cache-Control: max-age=600` (and no validators, so a reloaded page's own request goes
    /// to the server while its sub-resources may come from the browser's cache).
    #[allow(dead_code)]
    pub fn start_pages(root: PathBuf, prefix: &'static str) -> Server {
        Server::start_with(root, prefix, false, "max-age=600")
    }

    /// [`Server::start`] that also answers every request with
    /// `Access-Control-Allow-Origin: *` (a second origin the page may fetch traces from).
    #[allow(dead_code)]
    pub fn start_cors(root: PathBuf, prefix: &'static str) -> Server {
        Server::start_with(root, prefix, true, "no-store")
    }

    fn start_with(root: PathBuf, prefix: &'static str, cors: bool, cache: &'static str) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let log2 = log.clone();
        let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped2 = stopped.clone();
        let held = Arc::new(Mutex::new(None));
        let held2 = held.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if stopped2.load(std::sync::atomic::Ordering::SeqCst) {
                    // As a server that is gone: the connection closes with no answer, which
                    // the browser reports as a network error (ERR_EMPTY_RESPONSE).
                    let _ = stream.shutdown(std::net::Shutdown::Both);
                    continue;
                }
                let root = root.clone();
                let log = log2.clone();
                let held = held2.clone();
                std::thread::spawn(move || {
                    serve_one(stream, &root, prefix, (cors, cache), &log, &held)
                });
            }
        });
        Server {
            port,
            log,
            stopped,
            held,
        }
    }

    /// Holds every request whose path ends with `suffix` unanswered until [`Server::release`]
    /// (a download whose bytes and size have not come yet).
    #[allow(dead_code)]
    pub fn hold(&self, suffix: &str) {
        *self.held.lock().unwrap() = Some(suffix.to_string());
    }

    /// Answers the held requests.
    #[allow(dead_code)]
    pub fn release(&self) {
        *self.held.lock().unwrap() = None;
    }

    /// Stops answering: every later connection is closed without a response (the browser
    /// sees a network error, as when the site's server is down).
    #[allow(dead_code)]
    pub fn stop(&self) {
        self.stopped
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// One request the proxy saw: (method, absolute URL or `CONNECT` authority).
pub type Proxied = (String, String);

/// What [`connect`] set up for one browser session: its proxy's log and its download folder.
/// Keyed by WebDriver session id, since some browser tests run beside others.
struct SessionSetup {
    session: String,
    log: Arc<Mutex<Vec<Proxied>>>,
    downloads: PathBuf,
}

static SESSIONS: Mutex<Vec<SessionSetup>> = Mutex::new(Vec::new());

/// The proxy log and download folder of client `c`.
async fn setup_of(c: &Client) -> (Arc<Mutex<Vec<Proxied>>>, PathBuf) {
    let id = c
        .session_id()
        .await
        .ok()
        .flatten()
        .expect("a WebDriver session id");
    let sessions = SESSIONS.lock().unwrap_or_else(|e| e.into_inner());
    let s = sessions
        .iter()
        .find(|s| s.session == id)
        .expect("a client made by `connect`");
    (s.log.clone(), s.downloads.clone())
}

/// Clicks the download link `css` as a person would and returns the text of the file
/// `file_name` the browser saved (waiting up to 30 s). The page's CSP (`connect-src 'self'`)
/// forbids reading a `blob:` link with `fetch`, so tests read downloads from disk.
#[allow(dead_code)]
pub async fn download(c: &Client, css: &str, file_name: &str) -> String {
    let path = setup_of(c).await.1.join(file_name);
    let _ = std::fs::remove_file(&path);
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no download link {css}: {e}"))
        .click()
        .await
        .unwrap();
    wait_until(Duration::from_secs(30), "the downloaded file", || async {
        std::fs::read_to_string(&path)
            .ok()
            .filter(|t| !t.is_empty())
    })
    .await
}

/// [`download`] for a binary file (a PNG): its bytes.
#[allow(dead_code)]
pub async fn download_bytes(c: &Client, css: &str, file_name: &str) -> Vec<u8> {
    let path = setup_of(c).await.1.join(file_name);
    let _ = std::fs::remove_file(&path);
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no download button {css}: {e}"))
        .click()
        .await
        .unwrap();
    // Chrome writes to `<name>.crdownload` and renames when done.
    wait_until(Duration::from_secs(30), "the downloaded file", || async {
        std::fs::read(&path).ok().filter(|b| !b.is_empty())
    })
    .await
}

/// Starts a logging proxy for one browser; returns its port and log.
fn start_proxy() -> (u16, Arc<Mutex<Vec<Proxied>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy on 127.0.0.1");
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let log2 = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let log = log2.clone();
            std::thread::spawn(move || proxy_one(stream, &log));
        }
    });
    (port, log)
}

/// Every request client `c`'s browser made (through its proxy) since it was connected.
pub async fn proxy_log(c: &Client) -> Vec<Proxied> {
    let log = setup_of(c).await.0;
    let out = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
    out
}

/// Handles one proxied request: logs it, forwards it to `127.0.0.1:<port>` as an origin-form
/// request with `Connection: close`, and copies the answer back; anything not on 127.0.0.1 gets
/// 403. Bounded: 64 KiB of headers, 10 s read timeouts.
fn proxy_one(mut client: TcpStream, log: &Mutex<Vec<Proxied>>) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match client.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let mut headers = Vec::new();
    let mut header_bytes = 0;
    let mut body_len = 0usize;
    loop {
        let mut h = String::new();
        match reader.read_line(&mut h) {
            Ok(0) | Err(_) => return,
            Ok(_) if h == "\r\n" || h == "\n" => break,
            Ok(n) => {
                header_bytes += n;
                if header_bytes > 64 * 1024 {
                    return;
                }
                let lower = h.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    body_len = v.trim().parse().unwrap_or(0);
                }
                if !lower.starts_with("proxy-connection:") && !lower.starts_with("connection:") {
                    headers.push(h);
                }
            }
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    log.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((method.clone(), target.clone()));
    eprintln!("[proxy] {method} {target}");
    let local = target
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| {
            let (port, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            Some((port.parse::<u16>().ok()?, path))
        })
        .filter(|_| method != "CONNECT");
    let Some((port, path)) = local else {
        let _ = client
            .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    let mut body = vec![0u8; body_len.min(16 << 20)];
    if std::io::Read::read_exact(&mut reader, &mut body).is_err() {
        return;
    }
    let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", port)) else {
        let _ = client.write_all(
            b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        return;
    };
    let path = if path.is_empty() { "/" } else { path };
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    headers.iter().for_each(|h| head.push_str(h));
    head.push_str("Connection: close\r\n\r\n");
    if upstream.write_all(head.as_bytes()).is_err() || upstream.write_all(&body).is_err() {
        return;
    }
    let _ = std::io::copy(&mut upstream, &mut client);
    let _ = client.flush();
}

/// A chromedriver process, killed on drop.
pub struct Driver {
    child: Child,
    pub port: u16,
}

impl Drop for Driver {
    /// Ends chromedriver *and* the Chromium it started: chromedriver runs in its own process
    /// group, and the whole group is killed, so a test that panics leaves no browser behind.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The profile of the session it served (7-20 MB each, ~40 sessions in a run): a CI
        // run's disk is shared, and one ran out of space (2026-12-06).
        let _ = std::fs::remove_dir_all(profile_dir(&tmp(), self.port));
    }
}

/// The Chromium profile of the session on chromedriver port `port`, under `tmp`.
fn profile_dir(tmp: &Path, port: u16) -> PathBuf {
    tmp.join(format!("chrome-profile-{}-{port}", std::process::id()))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Driver {
    /// Starts `chromedriver --port=<free>` with `TMPDIR` = `tmp` and waits until it listens.
    /// With `TRIALSCOPE_CHROME_LOGS` set (benchmarks only), chromedriver runs with
    /// `--enable-chrome-logs` and its output and Chromium's reach the test's own: what V8
    /// prints for `TRIALSCOPE_CHROME_ARGS=--js-flags=--trace-wasm-compilation-times`, read
    /// by `tools/bench/wasm_tierup.sh`.
    pub fn start(tmp: &Path) -> Driver {
        let port = free_port();
        let logs = std::env::var_os("TRIALSCOPE_CHROME_LOGS").is_some();
        let out = || {
            if logs {
                Stdio::inherit()
            } else {
                Stdio::null()
            }
        };
        let mut cmd = Command::new("chromedriver");
        cmd.process_group(0).arg(format!("--port={port}"));
        if logs {
            cmd.arg("--enable-chrome-logs");
        }
        let child = cmd
            .env("TMPDIR", tmp)
            .stdout(out())
            .stderr(out())
            .spawn()
            .expect("chromedriver on PATH (Debian package chromium-driver; run .ci/setup)");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "chromedriver did not start listening on port {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Driver { child, port }
    }

    /// The chromedriver process id (the browser it starts runs below it).
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// Connects a headless Chromium session with a fresh profile under `tmp`, the performance
/// log enabled, downloads saved under the profile ([`download`]) and every request through a
/// logging proxy of its own ([`proxy_log`]).
pub async fn connect(driver: &Driver, tmp: &Path) -> Client {
    let (proxy, log) = start_proxy();
    let profile = profile_dir(tmp, driver.port);
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).unwrap();
    let downloads = profile.join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();

    let mut caps = json!({
        "goog:chromeOptions": {
            "args": [
                "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--window-size=1400,1000",
                // Chromium's own services (autofill, sign-in, updates, search preconnect) would
                // show in the proxy's log: the local-only check must see the page's requests.
                "--disable-features=AutofillServerCommunication,OptimizationHints,MediaRouter,\
                 Translate,AccountConsistency,PreconnectToSearch,\
                 SearchEngineChoiceTrigger,NetworkTimeServiceQuerying",
                "--disable-default-apps", "--disable-extensions", "--no-pings",
                "--disable-client-side-phishing-detection", "--disable-domain-reliability",
                "--disable-search-engine-choice-screen", "--no-default-browser-check",
                "--metrics-recording-only", "--disable-breakpad",
                format!("--user-data-dir={}", profile.display()),
                format!("--proxy-server=http://127.0.0.1:{proxy}"),
                // Loopback too goes through the proxy (Chromium bypasses it by default).
                "--proxy-bypass-list=<-loopback>".to_string(),
            ],
            "prefs": {
                "download.default_directory": downloads.display().to_string(),
                "download.prompt_for_download": false,
            }
        },
        "goog:loggingPrefs": { "performance": "ALL", "browser": "ALL" }
    });
    // `TRIALSCOPE_CHROME_ARGS`: more Chromium flags, space-separated, for experiments with the
    // benchmarks (e.g. `--js-flags=--no-wasm-dynamic-tiering`); unset in the tests.
    if let Ok(extra) = std::env::var("TRIALSCOPE_CHROME_ARGS") {
        if let Some(a) = caps["goog:chromeOptions"]["args"].as_array_mut() {
            a.extend(extra.split_whitespace().map(|s| Value::from(s.to_string())));
        }
    }
    let caps = match caps {
        Value::Object(m) => m,
        _ => unreachable!(),
    };
    let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a chromedriver session");
    let session = c
        .session_id()
        .await
        .ok()
        .flatten()
        .expect("a WebDriver session id");
    SESSIONS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(SessionSetup {
            session,
            log,
            downloads,
        });
    c
}

/// chromedriver's (non-W3C) log endpoint: `POST /session/{id}/se/log {"type": …}`.
#[derive(Debug)]
struct GetLog(&'static str);

impl fantoccini::wd::WebDriverCompatibleCommand for GetLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/se/log", session_id.unwrap_or("")))
    }
    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": self.0 }).to_string()),
        )
    }
}

/// Entries of a chromedriver log (`performance` or `browser`) since the last call.
pub async fn log_entries(client: &Client, kind: &'static str) -> Vec<Value> {
    match client.issue_cmd(GetLog(kind)).await {
        Ok(Value::Array(a)) => a,
        Ok(other) => panic!("unexpected {kind} log: {other}"),
        Err(e) => panic!("cannot read the {kind} log: {e}"),
    }
}

/// URLs of every `Network.requestWillBeSent` in performance-log `entries`, except requests
/// the browser then blocked before sending them (`Network.loadingFailed` with a
/// `blockedReason`, e.g. `csp`: DevTools announces those too).
pub fn requested_urls(entries: &[Value]) -> Vec<String> {
    let messages: Vec<Value> = entries
        .iter()
        .filter_map(|e| e.get("message")?.as_str())
        .filter_map(|m| serde_json::from_str::<Value>(m).ok())
        .map(|m| m["message"].clone())
        .collect();
    let blocked: Vec<&Value> = messages
        .iter()
        .filter(|m| {
            m["method"] == "Network.loadingFailed" && !m["params"]["blockedReason"].is_null()
        })
        .map(|m| &m["params"]["requestId"])
        .collect();
    messages
        .iter()
        .filter(|m| m["method"] == "Network.requestWillBeSent")
        .filter(|m| !blocked.contains(&&m["params"]["requestId"]))
        .filter_map(|m| m["params"]["request"]["url"].as_str().map(str::to_string))
        .collect()
}

/// Polls `f` every 200 ms until it yields `Some`, panicking with `what` after `timeout`.
pub async fn wait_until<T, F, Fut>(timeout: Duration, what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(
            start.elapsed() < timeout,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The sub-path the tests serve the site under (GitHub Pages project-site style).
#[allow(dead_code)]
pub const PREFIX: &str = "/trialscope/";

/// One browser at a time: the machine may have only 2 cores.
static SERIAL: Mutex<()> = Mutex::new(());

/// Runs `f` on a fresh tokio runtime while holding [`SERIAL`].
#[allow(dead_code)]
pub fn serial(f: impl std::future::Future<Output = ()>) {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f);
}

#[allow(dead_code)]
pub fn dist() -> PathBuf {
    let d = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/dist"));
    assert!(
        d.join("index.html").is_file(),
        "dist/index.html is missing: build the site first with `trunk build --release --offline` \
         (or run `bash .ci/test`, which does it)"
    );
    d
}

/// The Web Worker's files of the site in `site`, as `.ci/hash-worker` (Trunk's `post_build`
/// hook) names them: `<h>` from index.html's `<meta name="trialscope-worker" content="<h>">`,
/// and `worker_loader-<h>.js`, `worker-<h>.js`, `worker-<h>_bg.wasm`.
#[allow(dead_code)]
pub struct WorkerFiles {
    /// 16 hex digits.
    pub hash: String,
    pub loader: String,
    pub glue: String,
    pub wasm: String,
}

/// The `content` of `site`'s `<meta name="trialscope-worker" content="…">` (index.html): the
/// worker's hash, empty in a build that kept Trunk's plain worker names; None without the meta.
#[allow(dead_code)]
pub fn worker_hash(site: &Path) -> Option<String> {
    let html = std::fs::read_to_string(site.join("index.html")).expect("index.html");
    let tag = r#"<meta name="trialscope-worker" content=""#;
    let at = html.find(tag)? + tag.len();
    Some(html[at..].split('"').next().unwrap_or("").to_string())
}

/// Reads [`WorkerFiles`] of `site` and checks that they are content-addressed: the three
/// files exist, the plain names Trunk writes (`worker_loader.js`, `worker.js`,
/// `worker_bg.wasm`) do not, and `<h>` is the first 16 hex digits of the SHA-256 of the
/// loader as written in `www/worker_loader.js`, the glue and the module. Panics otherwise.
#[allow(dead_code)]
pub fn worker_files(site: &Path) -> WorkerFiles {
    use sha2::{Digest, Sha256};
    let hash = worker_hash(site).unwrap_or_else(|| {
        panic!(
            "{}: no <meta name=\"trialscope-worker\"> in index.html",
            site.display()
        )
    });
    assert!(
        hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "{}: the worker's hash is {hash:?}, not 16 hex digits (was .ci/hash-worker run?)",
        site.display()
    );
    let f = WorkerFiles {
        loader: format!("worker_loader-{hash}.js"),
        glue: format!("worker-{hash}.js"),
        wasm: format!("worker-{hash}_bg.wasm"),
        hash,
    };
    for plain in ["worker_loader.js", "worker.js", "worker_bg.wasm"] {
        assert!(
            !site.join(plain).exists(),
            "{}: {plain} is left",
            site.display()
        );
    }
    let source = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/worker_loader.js"));
    let mut h = Sha256::new();
    h.update(std::fs::read(source).unwrap());
    for name in [&f.glue, &f.wasm] {
        let bytes = std::fs::read(site.join(name))
            .unwrap_or_else(|e| panic!("{}: {name}: {e}", site.display()));
        h.update(bytes);
    }
    let want: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        f.hash,
        want,
        "{}: the worker's name is not its content's hash",
        site.display()
    );
    let loader = std::fs::read_to_string(site.join(&f.loader)).expect("the worker loader");
    for name in [&f.glue, &f.wasm] {
        assert!(
            loader.contains(&format!("\"./{name}\"")),
            "{} does not name {name}",
            f.loader
        );
    }
    f
}

/// Clicks the element `css` names. Panics (naming `css`) when there is none or the click fails.
#[allow(dead_code)]
pub async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

#[allow(dead_code)]
pub fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

#[allow(dead_code)]
pub async fn attr(c: &Client, css: &str, name: &str) -> Option<String> {
    let e = c.find(Locator::Css(css)).await.ok()?;
    e.attr(name).await.ok().flatten()
}

/// The page's import figures, from `#import-stats`'s data attributes: `files` (finished
/// files, `data-files`), `bytes` (decompressed bytes, `data-bytes`), `import_ms` (the import
/// workers' summed wall time, `data-import-ms`) and `e2e_ms` (pick → hotspot table,
/// `data-e2e-ms`). `None` until the page shows a file count; each other figure `None` until set.
#[derive(Clone, Copy, Debug)]
pub struct ImportStats {
    pub files: usize,
    pub bytes: Option<f64>,
    pub import_ms: Option<f64>,
    pub e2e_ms: Option<f64>,
}

#[allow(dead_code)]
pub async fn import_stats(c: &Client) -> Option<ImportStats> {
    let css = "#import-stats";
    let num = |v: Option<String>| v.and_then(|v| v.parse::<f64>().ok());
    Some(ImportStats {
        files: attr(c, css, "data-files").await?.parse().ok()?,
        bytes: num(attr(c, css, "data-bytes").await),
        import_ms: num(attr(c, css, "data-import-ms").await),
        e2e_ms: num(attr(c, css, "data-e2e-ms").await),
    })
}

/// Makes the page see `n` as `navigator.hardwareConcurrency` (DevTools
/// `Emulation.setHardwareConcurrencyOverride`, before the page opens), so the import pool
/// starts the workers it would on such a machine.
#[allow(dead_code)]
pub async fn emulate_cores(c: &Client, n: u32) {
    c.issue_cmd(Cdp(json!({
        "cmd": "Emulation.setHardwareConcurrencyOverride",
        "params": {"hardwareConcurrency": n}
    })))
    .await
    .expect("chromedriver runs the DevTools command");
}

/// A DevTools protocol command through chromedriver (`POST /session/{id}/goog/cdp/execute`
/// with `{"cmd": …, "params": …}`).
#[derive(Debug)]
pub struct Cdp(pub Value);

impl fantoccini::wd::WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/goog/cdp/execute",
            session_id.unwrap_or("")
        ))
    }
    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.0.to_string()))
    }
}

#[allow(dead_code)]
pub async fn count(c: &Client, css: &str) -> usize {
    c.find_all(Locator::Css(css)).await.map_or(0, |v| v.len())
}

/// Hosts of Chromium's own background services that its flags do not silence in headless
/// mode (sign-in, the component updater, the default search engine's preconnect): requests the
/// browser makes by itself at start, never the page's or the worker's. The proxy refuses them
/// (403), so nothing leaves the machine; [`assert_local_only`] leaves only these out.
const BROWSER_SERVICES: &[&str] = &[
    "accounts.google.com",
    "update.googleapis.com",
    "clients2.google.com",
    "content-autofill.googleapis.com",
    "start.duckduckgo.com",
];

/// True when a proxied target (`host:port` of a CONNECT, or an absolute URL) is one of
/// [`BROWSER_SERVICES`].
fn is_browser_service(target: &str) -> bool {
    let rest = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("https://"))
        .unwrap_or(target);
    let host = rest.split(['/', ':']).next().unwrap_or("");
    BROWSER_SERVICES.contains(&host)
}

/// Asserts that every request went to `origin` (or data:/blob:) and was answered with 200.
#[allow(dead_code)]
pub async fn assert_local_only(c: &Client, server: &Server) {
    assert_local_only_with(c, server, &[]).await;
}

/// [`assert_local_only`] where requests may also go to the `others` servers (more local
/// origins: trace servers, a parent page), asked only under [`PREFIX`] (what they answered is
/// the test's to check: a missing trace is a 404 on purpose).
#[allow(dead_code)]
pub async fn assert_local_only_with(c: &Client, server: &Server, others: &[&Server]) {
    let entries = log_entries(c, "performance").await;
    let urls = requested_urls(&entries);
    assert!(!urls.is_empty(), "the performance log recorded no request");
    let origin = format!("http://127.0.0.1:{}/", server.port);
    let other_origins: Vec<String> = others
        .iter()
        .map(|s| format!("http://127.0.0.1:{}/", s.port))
        .collect();
    let allowed =
        |u: &str| u.starts_with(&origin) || other_origins.iter().any(|o| u.starts_with(o));
    let mut to_origin = 0;
    for u in &urls {
        // chrome:// and about: are the browser's own pages (its blank new-tab page before
        // navigation), not network requests.
        let internal = u.starts_with("chrome://") || u.starts_with("about:");
        let local = allowed(u) || u.starts_with("data:") || u.starts_with("blob:");
        assert!(internal || local, "a request left the test server: {u}");
        to_origin += usize::from(u.starts_with(&origin));
    }
    assert!(
        to_origin >= 5,
        "only {to_origin} requests to the test server: {urls:?}"
    );
    // Every request of the browser, the worker's included (worker_loader-<h>.js, worker-<h>.js
    // and its wasm are not in the page's performance log), passed the proxy: all went to the
    // server.
    let proxied: Vec<Proxied> = proxy_log(c)
        .await
        .into_iter()
        .filter(|(_, u)| !is_browser_service(u))
        .collect();
    for (m, u) in &proxied {
        assert!(allowed(u), "a request left the test server: {m} {u}");
    }
    for part in ["/worker_loader-", "_bg.wasm", "/boot.js"] {
        assert!(
            proxied.iter().any(|(_, u)| u.contains(part)),
            "the proxy saw no request for {part}: {proxied:?}"
        );
    }
    let worker_wasm = proxied
        .iter()
        .filter(|(_, u)| u.contains("/worker") && u.ends_with("_bg.wasm"))
        .count();
    assert!(
        worker_wasm >= 1,
        "the worker's wasm was not seen: {proxied:?}"
    );
    for (m, p, _) in others.iter().flat_map(|o| o.log.lock().unwrap().clone()) {
        assert!(
            p.starts_with(PREFIX),
            "request outside the sub-path: {m} {p}"
        );
    }
    let log = server.log.lock().unwrap().clone();
    assert!(!log.is_empty());
    for (m, p, s) in &log {
        assert_eq!(*s, 200, "the server answered {s} to {m} {p}");
        assert!(
            p.starts_with(PREFIX),
            "request outside the sub-path: {m} {p}"
        );
    }
}

/// Opens the site under [`PREFIX`] with `?demo=0` and waits (up to 60 s) until the app has
/// mounted the element `css`, which it returns.
#[allow(dead_code)]
pub async fn open_without_demo(c: &Client, server: &Server, css: &str) -> Element {
    c.goto(&format!("http://127.0.0.1:{}{PREFIX}?demo=0", server.port))
        .await
        .unwrap();
    c.wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("the app mounted {css}: {e:?}"))
}

/// What [`assert_visible`] found: the element's visible text.
#[allow(dead_code)]
pub async fn visible_text(c: &Client, el: &Element) -> Result<String, String> {
    if !el.is_displayed().await.map_err(|e| e.to_string())? {
        return Err("WebDriver says it is not displayed".into());
    }
    let arg = serde_json::to_value(el).map_err(|e| e.to_string())?;
    let v = c
        .execute(
            "const e = arguments[0];
             e.scrollIntoView({block: 'center', inline: 'nearest'});
             const r = e.getBoundingClientRect();
             const vw = window.innerWidth, vh = window.innerHeight;
             if (!(r.width > 0 && r.height > 0)) return 'empty box ' + r.width + 'x' + r.height;
             if (r.bottom <= 0 || r.right <= 0 || r.top >= vh || r.left >= vw)
               return 'outside the viewport: ' + JSON.stringify(r);
             for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
               const s = getComputedStyle(n);
               if (s.visibility === 'hidden' || s.visibility === 'collapse')
                 return 'visibility:' + s.visibility + ' on ' + n.tagName;
               if (parseFloat(s.opacity) === 0) return 'opacity:0 on ' + n.tagName;
               if (s.display === 'none') return 'display:none on ' + n.tagName;
             }
             return {text: e.innerText ?? e.textContent};",
            vec![arg],
        )
        .await
        .map_err(|e| e.to_string())?;
    match v {
        Value::Object(m) => Ok(m
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()),
        Value::String(why) => Err(why),
        other => Err(format!("unexpected {other}")),
    }
}

/// Asserts that the first element matching `css` is visible to a person (WebDriver's
/// `is_displayed`; after scrolling it into view, a non-empty bounding box inside the viewport;
/// no `visibility: hidden`, `opacity: 0` or `display: none` on it or an ancestor) and returns
/// its rendered text (`innerText`).
#[allow(dead_code)]
pub async fn assert_visible(c: &Client, css: &str) -> String {
    let el = c
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no element {css}: {e}"));
    visible_text(c, &el)
        .await
        .unwrap_or_else(|why| panic!("{css} is not visible: {why}"))
}

/// [`assert_visible`] for every element matching `css` (at least one); their texts.
#[allow(dead_code)]
pub async fn assert_all_visible(c: &Client, css: &str) -> Vec<String> {
    let els = c.find_all(Locator::Css(css)).await.unwrap_or_default();
    assert!(!els.is_empty(), "no element {css}");
    let mut out = Vec::new();
    for (i, el) in els.iter().enumerate() {
        out.push(
            visible_text(c, el)
                .await
                .unwrap_or_else(|why| panic!("{css} #{i} is not visible: {why}")),
        );
    }
    out
}

/// The rendered text of the first element matching `css` when a person can see it: a closed
/// `<details>` around it is opened first by clicking its summary (as a person would), then
/// [`visible_text`] must hold. `None` when there is no such element or it stays invisible.
#[allow(dead_code)]
pub async fn seen_text(c: &Client, css: &str) -> Option<String> {
    let el = c.find(Locator::Css(css)).await.ok()?;
    let arg = serde_json::to_value(&el).ok()?;
    let closed = c
        .execute(
            "const d = arguments[0].closest('details');
             if (!d || d.open) return false;
             d.querySelector(':scope > summary').setAttribute('data-harness-open', '');
             return true;",
            vec![arg],
        )
        .await
        .ok()?;
    if closed == Value::Bool(true) {
        let summary = c.find(Locator::Css("[data-harness-open]")).await.ok()?;
        let _ = c
            .execute(
                "document.querySelectorAll('[data-harness-open]')
                   .forEach(e => e.removeAttribute('data-harness-open'));",
                vec![],
            )
            .await;
        summary.click().await.ok()?;
    }
    match visible_text(c, &el).await {
        Ok(t) => Some(t.trim().to_string()),
        Err(why) => {
            eprintln!("{css} is not visible: {why}");
            None
        }
    }
}
