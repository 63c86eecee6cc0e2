//! Secrets never reach Laika's files or output (security suite, part `secrets`).
//!
//! Pages built here carry distinctive random secrets everywhere a page keeps them out of sight:
//! filled form fields (password with a `value`, e-mail, text, one-time code, card number, a
//! textarea, a select's option value), hidden inputs (`csrf_token`, `token`), a `csrf-token` meta
//! tag, credentials in URLs (links, form actions, `formaction`, images and frames with `token=`,
//! `access_token=`, `sig=`, `session=`, `password=`, `csrftoken=`; user info; an OAuth
//! `#access_token=` fragment; a token inside an encoded redirect; the page's own URL) and
//! cookie-like strings (`sessionid=…; csrftoken=…`) in a data attribute and in scripts. The tab
//! list of a planning request carries one more, in a tab's URL.
//!
//! The real host is driven through everything that reads a page or writes a file: the
//! `observe` CLI (budgeted, `--full`, `--cursor`), `summarize` and `plan` on the HTML files,
//! and over native messaging `summary.start`/`poll`, `plan` (with tabs), `approval.decide`,
//! `tool.result` (with the next observation), `history.list`/`get`/`export`, then the
//! `history` CLI (`list`, `show`, `export --out`). That runs twice, on fresh data directories:
//! with debug output off, and with `LAIKA_DEBUG=1` (which writes `llm.jsonl`) and
//! `LAIKA_LOG=trace` on stderr. Afterwards the raw bytes of every file in the data directory
//! (database, `-wal`, `-shm`, `llm.jsonl`, `config.json`, the export, anything else) and every
//! captured stdout and stderr are searched for every secret (ASCII case-insensitively): none may
//! be there.
//!
//! Text the page shows is page content, not a secret of the page: a cookie string in a visible
//! paragraph is read, summarised and quoted like any other sentence (the user sees it, and the
//! model may need it). One such visible value is planted as a control: it must be found in the
//! observation, which shows the search can find what is there.
//!
//! Then `LAIKA_LOG_FULL_LLM=1` (full-packet mode): the host must warn on stderr at startup and
//! report `history_storage: "full"` in `host.info`, and the history must then hold the whole
//! page text. Leaks in that mode are counted but allowed.
//!
//! With `LAIKA_SECURITY_OUT=DIR` the counts go to `DIR/secrets.json`.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

mod support;
use support::Rng;

/// The planted secrets: name → value, and where each kind hides.
struct Secrets {
    rng: Rng,
    values: BTreeMap<&'static str, (String, &'static str)>,
}

impl Secrets {
    fn new() -> Secrets {
        let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
            ^ u64::from(std::process::id());
        Secrets { rng: Rng(seed), values: BTreeMap::new() }
    }

    /// A fresh secret: letters outside hex first (it can never be part of a digest or an id),
    /// then 20 hex digits.
    fn plant(&mut self, name: &'static str, kind: &'static str) -> String {
        let value = format!("zq{}x{:016x}{:04x}", name.len(), self.rng.next(), self.rng.next() & 0xffff);
        self.values.insert(name, (value.clone(), kind));
        value
    }

    fn get(&self, name: &str) -> &str {
        &self.values[name].0
    }
}

struct Page {
    file: &'static str,
    url: String,
    html: String,
}

fn pages(s: &mut Secrets) -> Vec<Page> {
    let login = format!(
        r#"<!doctype html><html><head><title>Sign in to Example Bank</title>
<meta name="csrf-token" content="{meta}">
<script>document.cookie = "sessionid={script_cookie}; path=/"; window.__CONFIG__ = {{"accessToken": "{script_token}"}};</script>
<script type="application/json" id="state">{{"session": "{json_state}"}}</script>
</head><body data-session="sessionid={data_cookie}; csrftoken={data_csrf}">
<main><h1>Sign in</h1>
<p>Welcome back to Example Bank. Sign in to see your accounts and your recent payments.</p>
<p>Your monthly statements are ready to read once you are signed in. Branches are open on weekdays.</p>
<form action="/session?session={form_action}&amp;next=%2Fhome" method="post">
<label for="user">Email</label><input id="user" name="email" type="email" value="{email}">
<label for="pw">Password</label><input id="pw" name="password" type="password" value="{password}" autocomplete="current-password">
<input type="password" name="confirm" value="{password2}">
<label>One-time code <input name="otp" autocomplete="one-time-code" value="{otp}"></label>
<label>Card number <input name="cardnumber" autocomplete="cc-number" value="{card}"></label>
<label>Note <textarea name="note">{textarea}</textarea></label>
<label>Account <select name="account"><option value="{option}" selected>Checking</option><option>Savings</option></select></label>
<input type="hidden" name="csrf_token" value="{hidden_csrf}">
<input type="hidden" name="token" value="{hidden_token}">
<label>Search <input type="text" name="q" value="{text}"></label>
<button type="submit" formaction="/login?password={formaction}">Sign in</button>
</form></main></body></html>"#,
        meta = s.plant("meta_csrf_token", "meta tag"),
        script_cookie = s.plant("script_cookie", "cookie string in a script"),
        script_token = s.plant("script_access_token", "token in a script"),
        json_state = s.plant("json_script_session", "token in a JSON script"),
        data_cookie = s.plant("data_attribute_sessionid", "cookie string in a data attribute"),
        data_csrf = s.plant("data_attribute_csrftoken", "cookie string in a data attribute"),
        form_action = s.plant("form_action_session", "URL credential (form action)"),
        email = s.plant("email_field_value", "filled form field"),
        password = s.plant("password_field_value", "filled password field"),
        password2 = s.plant("unlabelled_password_value", "filled password field"),
        otp = s.plant("one_time_code_value", "filled form field"),
        card = s.plant("card_number_value", "filled form field"),
        textarea = s.plant("textarea_value", "filled form field"),
        option = s.plant("option_value", "form value (option)"),
        hidden_csrf = s.plant("hidden_csrf_token", "hidden input"),
        hidden_token = s.plant("hidden_token", "hidden input"),
        text = s.plant("text_field_value", "filled form field"),
        formaction = s.plant("formaction_password", "URL credential (formaction)"),
    );
    let links = format!(
        r#"<!doctype html><html><head><title>Account links</title></head><body>
<main><article><h1>Your account links</h1>
<p>This page lists the links of your account. Each one opens a part of the service you use every day.</p>
<p>Reset your password with <a href="/reset?token={token}">this link</a>. Or open the <a href="https://api.example.com/v1/data?access_token={access}&amp;format=json">data export</a> for the last month.</p>
<p>Download <a href="https://cdn.example.com/file.pdf?sig={sig}&amp;expires=1700000000">the signed file</a>, or <a href="/dashboard?session={session}">go to the dashboard</a>, or use the <a href="/legacy?password={password}">legacy login</a>.</p>
<p>The admin panel is on the <a href="https://admin:{userinfo}@intranet.example.com/">intranet</a>.</p>
<p>Finish signing in on the <a href="https://app.example.com/callback#access_token={fragment}&amp;token_type=bearer">callback page</a>.</p>
<p>Your session ended; <a href="/login?next=%2Freset%3Ftoken%3D{nested}">sign in again</a> to continue.</p>
<p>Old bookmarks use <a href="/x?csrftoken={csrf}">the previous address</a>.</p>
<p><img src="https://img.example.com/chart.png?sig={img}" alt="Balance chart"></p>
<iframe src="https://embed.example.com/widget?token={iframe}" title="Widget"></iframe>
<p>Support asked for this, so here it is: your debug cookie is sessionid={visible} today.</p>
</article></main></body></html>"#,
        token = s.plant("link_token", "URL credential (link)"),
        access = s.plant("link_access_token", "URL credential (link)"),
        sig = s.plant("link_sig", "URL credential (link)"),
        session = s.plant("link_session", "URL credential (link)"),
        password = s.plant("link_password", "URL credential (link)"),
        userinfo = s.plant("link_userinfo_password", "URL credential (user info)"),
        fragment = s.plant("link_fragment_access_token", "URL credential (fragment)"),
        nested = s.plant("link_nested_redirect_token", "URL credential (inside a redirect parameter)"),
        csrf = s.plant("link_csrftoken", "URL credential (link)"),
        img = s.plant("image_sig", "URL credential (image)"),
        iframe = s.plant("iframe_token", "URL credential (frame)"),
        visible = s.plant_visible("visible_cookie_text"),
    );
    let list = format!(
        r#"<!doctype html><html><head><title>Search results</title></head><body><main>
<h1>Results for statements</h1>
<ol class="results">
<li class="result"><h3><a href="/statements/2024-01?session={a}">January statement is ready to download now</a></h3><p>Your January statement lists every payment of the month.</p></li>
<li class="result"><h3><a href="/statements/2024-02?token={b}">February statement is ready to download now</a></h3><p>Your February statement lists every payment of the month.</p></li>
<li class="result"><h3><a href="/statements/2024-03?auth={c}">March statement is ready to download now</a></h3><p>Your March statement lists every payment of the month.</p></li>
</ol></main></body></html>"#,
        a = s.plant("item_session", "URL credential (list item)"),
        b = s.plant("item_token", "URL credential (list item)"),
        c = s.plant("item_auth", "URL credential (list item)"),
    );
    vec![
        Page {
            file: "login.html",
            url: format!(
                "https://bank.example.com/signin?token={}&tab=home",
                s.plant("page_url_token", "URL credential (page URL)")
            ),
            html: login,
        },
        Page {
            file: "links.html",
            url: format!(
                "https://user:{}@bank.example.com/links",
                s.plant("page_url_userinfo", "URL credential (page URL)")
            ),
            html: links,
        },
        Page {
            file: "list.html",
            url: format!(
                "https://bank.example.com/search?q=statements&sid={}",
                s.plant("page_url_sid", "URL credential (page URL)")
            ),
            html: list,
        },
    ]
}

impl Secrets {
    /// Visible page text: a control, not a secret (see the module docs).
    fn plant_visible(&mut self, name: &'static str) -> String {
        self.plant(name, "visible page text (control)")
    }

    fn is_control(&self, name: &str) -> bool {
        self.values[name].1.starts_with("visible")
    }
}

/// Everything captured from the host: (where, bytes).
type Places = Vec<(String, Vec<u8>)>;

fn host_command(data_dir: &Path, env: &[(&str, &str)]) -> Command {
    let mut command = support::host_command(data_dir);
    for (key, value) in env {
        command.env(key, value);
    }
    command
}

/// Runs a CLI command; its stdout and stderr become places to search.
fn cli(data_dir: &Path, env: &[(&str, &str)], args: &[&str], places: &mut Places) -> Vec<u8> {
    let out = host_command(data_dir, env).args(args).output().expect("laika-host runs");
    let label = args.iter().take(2).copied().collect::<Vec<_>>().join(" ");
    assert!(out.status.success(), "laika-host {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    places.push((format!("stdout of `{label}`"), out.stdout.clone()));
    places.push((format!("stderr of `{label}`"), out.stderr));
    out.stdout
}

struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
    next_id: u64,
    /// Every reply's bytes, as the browser would receive them.
    replies: Vec<u8>,
    data_dir: std::path::PathBuf,
}

impl Host {
    fn start(data_dir: &Path, env: &[(&str, &str)]) -> Host {
        let mut child = host_command(data_dir, env)
            .arg("chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("laika-host starts");
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stderr.read_to_end(&mut bytes);
            bytes
        });
        Host {
            stdin: child.stdin.take(),
            stdout: child.stdout.take().unwrap(),
            child,
            stderr: Some(stderr),
            next_id: 0,
            replies: Vec::new(),
            data_dir: data_dir.to_path_buf(),
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(&support::request(self.next_id, method, params)).unwrap();
        stdin.flush().unwrap();
        let body = support::read_frame(&mut self.stdout).expect("a reply");
        self.replies.extend_from_slice(&body);
        let reply: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(reply["id"], self.next_id, "{reply}");
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// Ends the session; its replies and stderr become places to search.
    fn stop(mut self, label: &str, places: &mut Places) -> Vec<u8> {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let mut stderr = self.stderr.take().unwrap().join().unwrap();
        assert!(status.success(), "{}", String::from_utf8_lossy(&stderr));
        // The browser's host is a proxy; the daemon behind it logs to daemon.log.
        stderr.extend_from_slice(support::daemon_log(&self.data_dir).as_bytes());
        places.push((format!("native-messaging replies ({label})"), std::mem::take(&mut self.replies)));
        places.push((format!("stderr of the native host ({label})"), stderr.clone()));
        stderr
    }
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("laika-secrets-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), r#"{"engine": "extractive"}"#).unwrap();
    dir
}

/// Every file under `dir`, raw.
fn files(dir: &Path, places: &mut Places) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, places);
        } else if path.is_file() {
            // (Not the daemon's socket, which holds no bytes and cannot be read as a file.)
            places.push((format!("file {}", path.display()), std::fs::read(&path).unwrap()));
        }
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    let needle = needle.to_ascii_lowercase().into_bytes();
    haystack.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(&needle))
}

/// Polls a summary job to the end.
fn follow(host: &mut Host, job: &str) -> Value {
    let mut cursor = 0;
    for _ in 0..2_000 {
        let poll = host.call("summary.poll", json!({ "job_id": job, "cursor": cursor }));
        cursor = poll["cursor"].as_u64().unwrap();
        if poll["done"] == true {
            assert!(poll["error"].is_null(), "{poll}");
            return poll;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the summary never finished");
}

/// One full run over the pages in a fresh data directory; returns the places to search, the
/// native host's `host.info` and the data directory.
fn run(
    mode: &str,
    env: &[(&str, &str)],
    pages: &[Page],
    secrets: &Secrets,
    page_dir: &Path,
) -> (Places, Value, PathBuf) {
    let dir = fresh_dir(mode);
    let mut places: Places = Vec::new();
    let mut observations = Vec::new();
    for page in pages {
        let path = page_dir.join(page.file);
        let path = path.to_str().unwrap();
        let observed = cli(&dir, env, &["observe", path, "--url", &page.url], &mut places);
        observations.push(serde_json::from_slice::<Value>(&observed).expect("an observation"));
        cli(&dir, env, &["observe", path, "--url", &page.url, "--full"], &mut places);
        cli(&dir, env, &["observe", path, "--url", &page.url, "--cursor", "0", "--max-chars", "200"], &mut places);
        cli(
            &dir,
            env,
            &["summarize", path, "--url", &page.url, "--engine", "extractive", "--format", "json"],
            &mut places,
        );
        for goal in ["click Sign in", "click this link"] {
            cli(&dir, env, &["plan", path, "--goal", goal, "--url", &page.url, "--engine", "extractive"], &mut places);
        }
    }

    let mut host = Host::start(&dir, env);
    let info = host.call("host.info", json!({}));
    let tab_url = format!("https://mail.example.com/inbox?session={}", secrets.get("tab_url_session"));
    let mut conversations = Vec::new();
    for observation in &observations {
        let started = host.call("summary.start", json!({ "observation": observation }));
        follow(&mut host, started["job_id"].as_str().unwrap());
        let conversation = started["conversation"]["id"].as_str().unwrap().to_string();
        // The first link or button on the page, clicked through an approval and reported back.
        let target = observation["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| (e["role"] == "link" || e["role"] == "button") && e["text"].as_str().is_some_and(|t| t.len() > 2))
            .expect("a link or a button")
            .clone();
        let goal = format!("click {}", target["text"].as_str().unwrap());
        let plan = host.call(
            "plan",
            json!({ "goal": goal, "observation": observation, "conversation_id": conversation,
                    "tabs": [{ "title": "Inbox", "url": tab_url }, { "title": "Bank", "url": observation["url"] }] }),
        );
        let call = &plan["tool_calls"][0];
        if let Some(approval) = call["approval_id"].as_str() {
            host.call("approval.decide", json!({ "approval_id": approval, "decision": "approve" }));
        }
        let mut result = json!({ "tag": target["tag"], "text": target["text"] });
        if let Some(href) = target.get("href") {
            result["href"] = href.clone();
        }
        host.call(
            "tool.result",
            json!({ "run_id": plan["run_id"], "conversation_id": conversation, "step": 1, "call_id": call["id"],
                    "name": call["name"], "ok": true, "result": result, "observation": observation, "goal": goal }),
        );
        // A goal that gives a password: planned, its cards approved, reported back with the goal
        // again, as the sidecar runs it.
        if observation["elements"].as_array().unwrap().iter().any(|e| e["field_kind"] == "password") {
            let goal = format!("Log in with username \"ada\" and password \"{}\"", secrets.get("goal_password"));
            let plan =
                host.call("plan", json!({ "goal": goal, "observation": observation, "conversation_id": conversation }));
            for call in plan["tool_calls"].as_array().unwrap() {
                if let Some(approval) = call["approval_id"].as_str() {
                    host.call("approval.decide", json!({ "approval_id": approval, "decision": "approve" }));
                }
                host.call(
                    "tool.result",
                    json!({ "run_id": plan["run_id"], "conversation_id": conversation, "step": 1, "call_id": call["id"],
                            "name": call["name"], "ok": true, "result": { "chars": 12 }, "observation": observation, "goal": goal }),
                );
            }
        }
        conversations.push(conversation);
    }
    host.call("history.list", json!({}));
    for id in &conversations {
        host.call("history.get", json!({ "conversation_id": id }));
        host.call("history.export", json!({ "conversation_id": id }));
    }
    let mut offset = Some(0);
    while let Some(at) = offset {
        let page = host.call("history.export", json!({ "offset": at }));
        offset = page["next_offset"].as_u64();
    }
    host.call("model.status", json!({}));
    host.call("config.get", json!({}));
    // The files while the host still has the database open: the -wal and -shm files exist now.
    files(&dir, &mut places);
    host.stop(mode, &mut places);

    cli(&dir, env, &["history", "list", "--json"], &mut places);
    cli(&dir, env, &["history", "show", &conversations[0]], &mut places);
    cli(&dir, env, &["history", "export"], &mut places);
    let export = dir.join("export.json");
    cli(&dir, env, &["history", "export", "--out", export.to_str().unwrap()], &mut places);
    files(&dir, &mut places);
    (places, info, dir)
}

struct Leak {
    secret: String,
    kind: String,
    place: String,
}

fn leaks(places: &Places, secrets: &Secrets) -> Vec<Leak> {
    let mut out = Vec::new();
    for (name, (value, kind)) in &secrets.values {
        if secrets.is_control(name) {
            continue;
        }
        for (place, bytes) in places {
            if contains(bytes, value) {
                out.push(Leak { secret: name.to_string(), kind: kind.to_string(), place: place.clone() });
            }
        }
    }
    out
}

#[test]
fn page_secrets_never_reach_files_logs_or_replies() {
    let mut secrets = Secrets::new();
    let pages = pages(&mut secrets);
    secrets.plant("tab_url_session", "URL credential (a tab's URL in the plan request)");
    secrets.plant("goal_password", "a password the user wrote in a goal (typed from the proposal, never stored)");
    let page_dir = fresh_dir("pages");
    for page in &pages {
        std::fs::write(page_dir.join(page.file), &page.html).unwrap();
    }

    let mut report_modes = Vec::new();
    let mut all_leaks = Vec::new();
    let mut places_searched = 0;
    let mut bytes_searched = 0;
    let mut files_searched = 0;
    let mut control_found = true;
    let modes = [("debug-off", vec![]), ("debug-on", vec![("LAIKA_DEBUG", "1"), ("LAIKA_LOG", "trace")])];
    // The two runs are independent (a data directory each): side by side.
    let runs: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = modes
            .iter()
            .map(|(mode, env)| {
                let (pages, secrets, page_dir) = (&pages, &secrets, &page_dir);
                scope.spawn(move || run(mode, env, pages, secrets, page_dir))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a run of the host")).collect()
    });
    for ((mode, env), (places, info, dir)) in modes.iter().zip(runs) {
        let mode = *mode;
        assert_eq!(info["history_storage"], "redacted", "{info}");
        if mode == "debug-on" {
            assert!(dir.join("llm.jsonl").is_file(), "LAIKA_DEBUG=1 writes llm.jsonl");
        }
        let found = leaks(&places, &secrets);
        // The control: the visible cookie text is page content and is observed.
        let visible = secrets.get("visible_cookie_text");
        let control =
            places.iter().any(|(place, bytes)| place.starts_with("stdout of `observe") && contains(bytes, visible));
        control_found &= control;
        places_searched += places.len();
        bytes_searched += places.iter().map(|(_, b)| b.len()).sum::<usize>();
        files_searched += places.iter().filter(|(p, _)| p.starts_with("file ")).count();
        let file_names: Vec<&str> = places
            .iter()
            .filter_map(|(p, _)| p.strip_prefix("file "))
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .collect();
        report_modes.push(json!({
            "mode": mode,
            "env": env.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
            "places": places.len(),
            "files": file_names,
            "bytes": places.iter().map(|(_, b)| b.len()).sum::<usize>(),
            "leaks": found.len(),
            "visible_control_found": control,
        }));
        all_leaks.extend(found.into_iter().map(|l| (mode, l)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    // Full-packet mode: the host must say so, and does store whole pages.
    let full_env = vec![("LAIKA_LOG_FULL_LLM", "1"), ("LAIKA_DEBUG", "1")];
    let dir = fresh_dir("full");
    let mut places: Places = Vec::new();
    let login = page_dir.join("login.html");
    let links = page_dir.join("links.html");
    let observed = cli(&dir, &full_env, &["observe", links.to_str().unwrap(), "--url", &pages[1].url], &mut places);
    let observation: Value = serde_json::from_slice(&observed).unwrap();
    cli(
        &dir,
        &full_env,
        &["summarize", login.to_str().unwrap(), "--url", &pages[0].url, "--engine", "extractive"],
        &mut places,
    );
    let mut host = Host::start(&dir, &full_env);
    let info = host.call("host.info", json!({}));
    let started = host.call("summary.start", json!({ "observation": observation }));
    follow(&mut host, started["job_id"].as_str().unwrap());
    files(&dir, &mut places);
    let stderr = host.stop("full", &mut places);
    let stderr = String::from_utf8_lossy(&stderr).to_string();
    let warns = stderr.contains("LAIKA_LOG_FULL_LLM") && stderr.to_lowercase().contains("full");
    let summarize_warns =
        places.iter().any(|(p, b)| p.starts_with("stderr of `summarize") && contains(b, "LAIKA_LOG_FULL_LLM"));
    // Whole packets: the observation's whole text (longer than a stored preview) is in the history.
    let page_text = observation["text"].as_str().unwrap();
    assert!(page_text.chars().count() > 400, "the page text is longer than a preview");
    let escaped = serde_json::to_string(page_text).unwrap();
    let export = cli(&dir, &full_env, &["history", "export"], &mut places);
    let stored_whole = contains(&export, escaped.trim_matches('"'));
    files(&dir, &mut places);
    let full_leaks = leaks(&places, &secrets);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&page_dir);

    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, kind) in secrets.values.values() {
        *kinds.entry(kind).or_default() += 1;
    }
    let leak_list: Vec<Value> = all_leaks
        .iter()
        .map(|(mode, l)| json!({ "mode": mode, "secret": l.secret, "kind": l.kind, "place": l.place }))
        .collect();
    let report = json!({
        "part": "secrets",
        "scale": if std::env::var("LAIKA_SECURITY_SCALE").is_ok_and(|s| s == "full") { "full" } else { "ci" },
        "secrets_planted": secrets.values.len() - 1,
        "controls_planted": 1,
        "secret_kinds": kinds,
        "pages": pages.len(),
        "modes": report_modes,
        "places_searched": places_searched,
        "files_searched": files_searched,
        "bytes_searched": bytes_searched,
        "leaks": all_leaks.len(),
        "leak_list": leak_list,
        "visible_control_found": control_found,
        "full_mode": {
            "warns_on_stderr": warns,
            "summarize_cli_warns": summarize_warns,
            "host_info_history_storage": info["history_storage"],
            "stores_whole_packets": stored_whole,
            "leaks": full_leaks.len(),
        },
    });
    write_report("secrets", &report);
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());

    let listed: Vec<String> =
        all_leaks.iter().map(|(mode, l)| format!("[{mode}] {} ({}) in {}", l.secret, l.kind, l.place)).collect();
    assert!(listed.is_empty(), "{} leaks:\n{}", listed.len(), listed.join("\n"));
    assert!(control_found, "the visible control value was not found in the observation: the search is broken");
    assert!(warns, "LAIKA_LOG_FULL_LLM=1 must be announced on stderr; stderr was:\n{stderr}");
    assert!(summarize_warns, "the summarize command stores too and must warn as well");
    assert_eq!(info["history_storage"], "full", "{info}");
    assert!(stored_whole, "full mode stores whole packets");
}

/// `$LAIKA_SECURITY_OUT/<part>.json`, when the suite collects results.
fn write_report(part: &str, report: &Value) {
    let Some(dir) = std::env::var_os("LAIKA_SECURITY_OUT") else { return };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("create LAIKA_SECURITY_OUT");
    std::fs::write(dir.join(format!("{part}.json")), serde_json::to_string_pretty(report).unwrap())
        .expect("write the security report");
}
