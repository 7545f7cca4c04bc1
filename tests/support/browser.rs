//! A real browser for the tests of pages: headless Chromium driven over WebDriver by
//! `chromedriver` on loopback (started by the test and killed when dropped). Without Chromium or
//! chromedriver, [`browser`] says so and the test SKIPs, unless `MCP_VERDICT_REQUIRE_BROWSER`
//! is set.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use super::tools::{self, REQUIRE_BROWSER};

/// A chromedriver process, killed when dropped.
pub struct Driver {
    child: Child,
    base: String,
    agent: ureq::Agent,
    /// Where screenshots and the driver's log go.
    dir: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    pub fn start(chromedriver: &Path, dir: &Path) -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = dir.join("chromedriver.log");
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .new_agent();
        let driver = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
            agent,
            dir: dir.to_path_buf(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(v) = driver.call("GET", "/status", None)
                && v["ready"] == true
            {
                return driver;
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A WebDriver command: its `value`, or the error the driver returned.
    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let url = format!("{}{path}", self.base);
        let response = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.unwrap_or_else(|| json!({})).to_string()),
        };
        let mut response = response.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| e.to_string())?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
        if status >= 400 {
            return Err(format!("{method} {path}: {status} {}", v["value"]));
        }
        Ok(v["value"].clone())
    }
}

/// A browser session.
pub struct Session<'d> {
    driver: &'d Driver,
    id: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self
            .driver
            .call("DELETE", &format!("/session/{}", self.id), None);
    }
}

impl Session<'_> {
    pub fn open<'d>(driver: &'d Driver, chromium: &Path, profile: &Path) -> Session<'d> {
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--window-size=1400,900",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("--user-data-dir={}", profile.display())])
        .collect::<Vec<_>>();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium.to_string_lossy(), "args": args}
        }}});
        let v = driver
            .call("POST", "/session", Some(caps))
            .expect("a Chromium session starts");
        Session {
            driver,
            id: v["sessionId"].as_str().unwrap().to_string(),
        }
    }

    pub fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.driver
            .call(method, &format!("/session/{}{path}", self.id), body)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// A viewport of `width` × `height` CSS pixels (a phone's when `mobile`).
    pub fn viewport(&self, width: u32, height: u32, mobile: bool) {
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(
                json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": {
                    "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile
                }}),
            ),
        );
        let inner = self.js("return window.innerWidth;");
        assert_eq!(inner, json!(width), "viewport width");
    }

    pub fn screenshot(&self, name: &str) -> PathBuf {
        let b64 = self.cmd("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().unwrap())
            .unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        let p = self.driver.dir.join(name);
        std::fs::write(&p, png).unwrap();
        eprintln!("screenshot: {}", p.display());
        p
    }

    pub fn find(&self, using: &str, value: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": using, "value": value})),
        );
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap()
            .to_string()
    }

    /// Clicks an element, as a person would (an `<option>`: chooses it).
    pub fn click(&self, using: &str, value: &str) {
        let e = self.find(using, value);
        self.cmd("POST", &format!("/element/{e}/click"), None);
    }
}

/// Chromium and chromedriver, or None (the test SKIPs, or fails when the browser is required).
pub fn browser() -> Option<(PathBuf, PathBuf)> {
    let candidates = |name: &str| -> Vec<PathBuf> {
        tools::on_path(name)
            .into_iter()
            .chain([PathBuf::from("/usr/bin").join(name)])
            .collect()
    };
    let how = "apt-get install chromium chromium-driver";
    let chromium = tools::find(&candidates("chromium"), REQUIRE_BROWSER, "Chromium", how)?;
    let chromedriver = tools::find(
        &candidates("chromedriver"),
        REQUIRE_BROWSER,
        "chromedriver",
        how,
    )?;
    Some((chromium, chromedriver))
}
