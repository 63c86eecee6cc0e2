//! The Policy Gate as a table (security suite, part `gate`): every tool of the catalogue, every
//! field kind, pages on the granted site and off it, with and without an observation, under no
//! grant and under grants for the same origin, other origins, malformed origins and every
//! capability.
//!
//! For each call and context the decision without grants is compared with the decision under
//! every grant set:
//! - a deny never changes (so no grant turns a deny into an allow), nor does an allow;
//! - an ask becomes an allow exactly when a grant for the offered capability names the origin
//!   the call acts on (and, for navigation in the tab, the page's origin too), never when the
//!   ask carries a warning; it never becomes a deny;
//! - denies carry the code the rule behind them gives (an independent oracle below), codes are
//!   `POLICY_*` and serialise as they print;
//! - typing or selecting into a password, one-time-code or payment field is denied whatever the
//!   grants.
//!
//! `LAIKA_SECURITY_SCALE=full` adds every subset of capabilities and every pair of single grants
//! (about twenty times the cases). With `LAIKA_SECURITY_OUT=DIR` the counts go to
//! `DIR/gate.json`.

use laika_shared::observation::{Element, FieldKind, Item, Observation};
use laika_shared::policy::{
    Capability, Decision, EndpointKind, IntegrationEndpoint, PolicyContext, ReasonCode, SiteGrant, Verdict, decide,
    origin_of,
};
use laika_shared::tools::{CATALOGUE, FindScope, NewSource, RawToolCall, ToolCall};
use serde_json::{Value, json};
use std::collections::BTreeMap;

const PAGE: &str = "https://shop.example/checkout";
const PAGE_ORIGIN: &str = "https://shop.example";

/// Every field kind. The match below has no wildcard: a new kind does not compile until it is
/// listed here.
const FIELD_KINDS: [FieldKind; 16] = [
    FieldKind::Text,
    FieldKind::Textarea,
    FieldKind::Search,
    FieldKind::Email,
    FieldKind::Tel,
    FieldKind::Url,
    FieldKind::Number,
    FieldKind::Date,
    FieldKind::Checkbox,
    FieldKind::Radio,
    FieldKind::Select,
    FieldKind::File,
    FieldKind::Password,
    FieldKind::OneTimeCode,
    FieldKind::Payment,
    FieldKind::Other,
];

fn kind_name(kind: FieldKind) -> &'static str {
    match kind {
        FieldKind::Text => "text",
        FieldKind::Textarea => "textarea",
        FieldKind::Search => "search",
        FieldKind::Email => "email",
        FieldKind::Tel => "tel",
        FieldKind::Url => "url",
        FieldKind::Number => "number",
        FieldKind::Date => "date",
        FieldKind::Checkbox => "checkbox",
        FieldKind::Radio => "radio",
        FieldKind::Select => "select",
        FieldKind::File => "file",
        FieldKind::Password => "password",
        FieldKind::OneTimeCode => "one-time-code",
        FieldKind::Payment => "payment",
        FieldKind::Other => "other",
    }
}

/// Every capability a grant can carry (same rule: no wildcard).
const CAPABILITIES: [Capability; 6] = [
    Capability::Click,
    Capability::Type,
    Capability::Select,
    Capability::Navigate,
    Capability::OpenTab,
    Capability::Search,
];

fn capability_name(capability: Capability) -> &'static str {
    match capability {
        Capability::Click => "click",
        Capability::Type => "type",
        Capability::Select => "select",
        Capability::Navigate => "navigate",
        Capability::OpenTab => "open_tab",
        Capability::Search => "search",
    }
}

/// The deny codes the gate has, and the reason codes of everything else.
const DENY_CODES: [ReasonCode; 6] = [
    ReasonCode::PolicySensitiveField,
    ReasonCode::PolicyBadScheme,
    ReasonCode::PolicyUnknownHandle,
    ReasonCode::PolicyDisabledElement,
    ReasonCode::PolicyUnknownIntegration,
    ReasonCode::PolicyNotInvocable,
];

/// The local services installed in every context: a query, a mutation that reaches the network,
/// and a subscription.
fn integrations() -> Vec<IntegrationEndpoint> {
    [("list", EndpointKind::Query), ("send", EndpointKind::Mutation), ("watch", EndpointKind::Subscription)]
        .into_iter()
        .map(|(endpoint, kind)| IntegrationEndpoint {
            service: "mail".into(),
            endpoint: endpoint.into(),
            kind,
            network: kind == EndpointKind::Mutation,
        })
        .collect()
}

/// The page: a field of every kind (enabled and disabled), buttons and links that carry each
/// warning, a plain button, and a handle that names a list item rather than an element.
fn observation() -> Observation {
    let mut elements = Vec::new();
    for kind in FIELD_KINDS {
        for disabled in [false, true] {
            elements.push(Element {
                handle_id: format!("{}-{}", if disabled { "off" } else { "field" }, kind_name(kind)),
                role: "textbox".into(),
                text: format!("Your {}", kind_name(kind)),
                field_kind: Some(kind),
                disabled,
                ..Default::default()
            });
        }
    }
    let button = |id: &str, text: &str| Element {
        handle_id: id.into(),
        role: "button".into(),
        text: text.into(),
        ..Default::default()
    };
    elements.extend([
        button("plain", "Next page"),
        button("login", "Sign in"),
        button("pay", "Pay now"),
        button("delete", "Delete account"),
        Element { disabled: true, ..button("plain-off", "Continue") },
        Element {
            handle_id: "exe".into(),
            role: "link".into(),
            text: "Get it".into(),
            href: Some("https://shop.example/setup.exe".into()),
            ..Default::default()
        },
        Element {
            handle_id: "download".into(),
            role: "link".into(),
            text: "Report".into(),
            href: Some("https://shop.example/report".into()),
            download: true,
            ..Default::default()
        },
        Element {
            handle_id: "email-password".into(),
            role: "textbox".into(),
            text: "Email or password".into(),
            field_kind: Some(FieldKind::Email),
            ..Default::default()
        },
        Element { handle_id: "unlabelled".into(), role: "textbox".into(), ..Default::default() },
    ]);
    Observation {
        url: PAGE.into(),
        title: "Checkout".into(),
        text: "Checkout page".into(),
        items: vec![Item { title: "An item".into(), handle_id: Some("item-1".into()), ..Default::default() }],
        elements,
        ..Default::default()
    }
}

/// Handles the element tools are tried on: every element, the list item, an unknown handle.
fn handles(observation: &Observation) -> Vec<String> {
    let mut out: Vec<String> = observation.elements.iter().map(|e| e.handle_id.clone()).collect();
    out.push("item-1".into());
    out.push("laika-404".into());
    out
}

const URLS: &[&str] = &[
    "https://shop.example/cart",
    "https://shop.example/setup.exe",
    "https://u:p@shop.example/",
    "http://shop.example/",
    "https://shop.example:8443/",
    "https://other.example/page",
    "HTTPS://SHOP.EXAMPLE/upper",
    "  https://shop.example/padded  ",
    "javascript:alert(1)",
    "data:text/html,x",
    "file:///etc/passwd",
    "chrome://settings",
    "ftp://shop.example/",
    "about:blank",
    "not a url",
    "https://",
    "/relative/path",
];

/// Argument variants for one tool. Panics for a tool it does not know, so a new catalogue entry
/// fails this test until the table covers it.
fn variants(name: &str, handles: &[String]) -> Vec<Value> {
    let each_handle =
        |extra: &dyn Fn(&str) -> Vec<Value>| -> Vec<Value> { handles.iter().flat_map(|h| extra(h)).collect() };
    let urls = || URLS.iter().map(|u| json!({ "url": u })).collect::<Vec<_>>();
    match name {
        "browser.observe_dom" => {
            vec![json!({}), json!({ "maxChars": 100, "rootHandleId": "laika-404", "debug": true })]
        }
        "browser.get_selection_links" => vec![json!({}), json!({ "maxLinks": 5 })],
        "browser.click" => each_handle(&|h| vec![json!({ "handleId": h })]),
        "browser.type" => {
            each_handle(&|h| vec![json!({ "handleId": h, "text": "hello" }), json!({ "handleId": h, "text": "" })])
        }
        "browser.select" => each_handle(&|h| vec![json!({ "handleId": h, "value": "12" })]),
        "browser.scroll" => vec![json!({ "deltaY": 300 }), json!({ "deltaY": -1e6 })],
        "browser.open_tab" | "browser.navigate" => urls(),
        "browser.back" | "browser.forward" | "browser.refresh" | "transform.list_types" => vec![json!({})],
        "search" => vec![json!({ "query": "rust" }), json!({ "query": "rust", "engine": "google", "newTab": false })],
        "content.summarize" => vec![json!({}), json!({ "handleId": "laika-404", "scope": "page" })],
        "content.find" => vec![
            json!({ "query": "price" }),
            json!({ "query": "price", "scope": "page" }),
            json!({ "query": "price", "scope": "web" }),
        ],
        "artifact.save" => vec![
            json!({ "title": "Notes", "text": "x" }),
            json!({ "title": "Doc", "doc": { "type": "doc", "children": [] }, "redaction": "none" }),
        ],
        "artifact.share" => vec![
            json!({ "artifactId": "a", "format": "markdown" }),
            json!({ "artifactId": "a", "format": "pdf", "target": "share_sheet" }),
            json!({ "artifactId": "a", "format": "csv", "target": "clipboard" }),
            json!({ "artifactId": "a", "format": "json", "target": "file", "filename": "a.json" }),
        ],
        "artifact.open" => {
            vec![json!({ "artifactId": "a" }), json!({ "artifactId": "a", "target": "browser", "newTab": true })]
        }
        "integration.invoke" => ["send", "list", "watch", "delete"]
            .into_iter()
            .map(|operation| json!({ "integration": "mail", "operation": operation, "payload": { "to": "x" } }))
            .chain([json!({ "integration": "calendar", "operation": "list", "payload": {}, "idempotencyKey": "k" })])
            .collect(),
        "app.calculate" => vec![json!({ "expression": "1+2", "precision": 2 })],
        "app.money_calculate" => vec![json!({ "expression": "19.99*3", "currency": "EUR", "rounding": "bankers" })],
        "collection.create" => vec![json!({ "title": "Reading", "tags": ["a"] })],
        "collection.list_sources" => vec![json!({ "collectionId": "c" })],
        "collection.add_sources" => {
            let mut out = vec![json!({ "collectionId": "c", "sources": [{ "type": "note", "text": "n" }] })];
            out.extend(URLS.iter().map(|u| {
                json!({ "collectionId": "c", "sources": [{ "type": "note", "text": "n" }, { "type": "url", "url": u }] })
            }));
            out
        }
        "source.capture" => URLS.iter().map(|u| json!({ "collectionId": "c", "url": u, "mode": "article" })).collect(),
        "source.refresh" => vec![json!({ "sourceId": "s" })],
        "transform.run" => vec![json!({ "collectionId": "c", "type": "brief", "config": { "k": 1 } })],
        other => panic!("the gate table has no cases for {other}: add them"),
    }
}

fn typed(name: &str, arguments: &Value) -> ToolCall {
    RawToolCall { name: name.into(), arguments: arguments.as_object().cloned().unwrap_or_default() }
        .to_typed()
        .unwrap_or_else(|e| panic!("{name} {arguments}: {e:?}"))
}

/// What the rules of laika-tools.md say must be denied, and with which code, computed without the
/// gate. `None`: not a deny.
fn expected_deny(call: &ToolCall, ctx: &PolicyContext<'_>) -> Option<ReasonCode> {
    let bad_url = |url: &str| {
        let parsed = url::Url::parse(url.trim()).ok();
        !parsed.is_some_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
    };
    let element_rule = |handle: &str, fills: bool| -> Option<ReasonCode> {
        let observation = ctx.observation?;
        let Some(element) = observation.element(handle) else {
            return (!observation.has_handle(handle)).then_some(ReasonCode::PolicyUnknownHandle);
        };
        if element.disabled {
            return Some(ReasonCode::PolicyDisabledElement);
        }
        (fills
            && element
                .field_kind
                .is_some_and(|k| matches!(k, FieldKind::Password | FieldKind::OneTimeCode | FieldKind::Payment)))
        .then_some(ReasonCode::PolicySensitiveField)
    };
    match call {
        ToolCall::Click(a) => element_rule(&a.handle_id, false),
        ToolCall::Type(a) => element_rule(&a.handle_id, true),
        ToolCall::Select(a) => element_rule(&a.handle_id, true),
        ToolCall::Navigate(a) | ToolCall::OpenTab(a) => bad_url(&a.url).then_some(ReasonCode::PolicyBadScheme),
        ToolCall::SourceCapture(a) => bad_url(&a.url).then_some(ReasonCode::PolicyBadScheme),
        ToolCall::CollectionAddSources(a) => a
            .sources
            .iter()
            .any(|s| matches!(s, NewSource::Url { url, .. } if bad_url(url)))
            .then_some(ReasonCode::PolicyBadScheme),
        ToolCall::IntegrationInvoke(a) => {
            match ctx.integrations.iter().find(|e| e.service == a.integration && e.endpoint == a.operation) {
                None => Some(ReasonCode::PolicyUnknownIntegration),
                Some(e) if e.kind == EndpointKind::Subscription => Some(ReasonCode::PolicyNotInvocable),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// Read-only and pure tools: allowed whatever the context (a local service's query reads).
fn read_only(call: &ToolCall, integrations: &[IntegrationEndpoint]) -> bool {
    match call {
        ToolCall::Find(a) => a.scope != Some(FindScope::Web),
        ToolCall::IntegrationInvoke(a) => integrations
            .iter()
            .any(|e| e.service == a.integration && e.endpoint == a.operation && e.kind == EndpointKind::Query),
        _ => matches!(
            call,
            ToolCall::ObserveDom(_)
                | ToolCall::GetSelectionLinks(_)
                | ToolCall::Scroll(_)
                | ToolCall::Summarize(_)
                | ToolCall::Calculate(_)
                | ToolCall::MoneyCalculate(_)
                | ToolCall::CollectionListSources(_)
                | ToolCall::TransformListTypes(_)
        ),
    }
}

/// Whether `grants` should turn the no-grant decision `plain` into an allow: a plain ask that
/// offers a capability, and a grant of it for the origin the call acts on (for navigation in the
/// tab, the page must be on that origin too).
fn expected_allow_by_grant(call: &ToolCall, ctx: &PolicyContext<'_>, plain: &Decision, grants: &[SiteGrant]) -> bool {
    let (Verdict::Ask, true, Some(capability)) = (plain.verdict, plain.warnings.is_empty(), plain.grantable) else {
        return false;
    };
    let page = ctx.page_url.and_then(origin_of);
    let target = match call {
        ToolCall::Navigate(a) | ToolCall::OpenTab(a) => origin_of(&a.url),
        _ => page.clone(),
    };
    let Some(target) = target else { return false };
    grants.iter().any(|g| {
        g.capability == capability
            && g.origin == target
            && (capability != Capability::Navigate || page.as_deref() == Some(g.origin.as_str()))
    })
}

fn grant_sets(full: bool) -> Vec<(String, Vec<SiteGrant>)> {
    let grant = |origin: &str, capability| SiteGrant { origin: origin.into(), capability };
    let origins = [PAGE_ORIGIN, "https://other.example", "http://shop.example", "https://shop.example:8443"];
    let mut sets: Vec<(String, Vec<SiteGrant>)> = vec![("none".into(), vec![])];
    let singles: Vec<SiteGrant> = origins.iter().flat_map(|o| CAPABILITIES.map(|c| grant(o, c))).collect::<Vec<_>>();
    for g in &singles {
        sets.push((format!("{} on {}", capability_name(g.capability), g.origin), vec![g.clone()]));
    }
    sets.push(("everything everywhere".into(), singles.clone()));
    // Origins the gate must never match: not canonical, not http(s), wildcards.
    for bad in
        ["https://shop.example/", "shop.example", "*", "", "HTTPS://SHOP.EXAMPLE", "https://*.example", "file://"]
    {
        sets.push((format!("all on malformed {bad:?}"), CAPABILITIES.map(|c| grant(bad, c)).to_vec()));
    }
    if full {
        for origin in [PAGE_ORIGIN, "https://other.example"] {
            for mask in 1u32..(1 << CAPABILITIES.len()) {
                let set: Vec<SiteGrant> = CAPABILITIES
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(_, &c)| grant(origin, c))
                    .collect();
                sets.push((format!("subset {mask:#b} on {origin}"), set));
            }
        }
        for (i, a) in singles.iter().enumerate() {
            for b in &singles[i + 1..] {
                sets.push((format!("pair {a:?} + {b:?}"), vec![a.clone(), b.clone()]));
            }
        }
    }
    sets
}

#[derive(Default)]
struct Tally {
    decisions: u64,
    by_verdict: BTreeMap<&'static str, u64>,
    deny_codes: BTreeMap<&'static str, u64>,
    deny_to_allow: u64,
    deny_changed: u64,
    allow_changed: u64,
    ask_to_allow: u64,
    ask_to_deny: u64,
    secret_field_cases: u64,
    secret_field_denied: u64,
    failures: Vec<String>,
    failure_count: u64,
}

impl Tally {
    fn fail(&mut self, message: String) {
        self.failure_count += 1;
        if self.failures.len() < 25 {
            self.failures.push(message);
        }
    }
}

fn verdict_name(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Allow => "allow",
        Verdict::Ask => "ask",
        Verdict::Deny => "deny",
    }
}

#[test]
fn no_grant_turns_a_deny_into_an_allow_for_any_tool_field_or_origin() {
    let full = std::env::var("LAIKA_SECURITY_SCALE").is_ok_and(|s| s == "full");
    let started = std::time::Instant::now();
    let observation = observation();
    let handles = handles(&observation);
    let mut calls: Vec<(String, ToolCall)> = Vec::new();
    for spec in CATALOGUE {
        let cases = variants(spec.name, &handles);
        assert!(!cases.is_empty(), "{} has no cases", spec.name);
        for arguments in cases {
            calls.push((format!("{} {arguments}", spec.name), typed(spec.name, &arguments)));
        }
    }
    let tools_covered: std::collections::BTreeSet<&str> = calls.iter().map(|(_, c)| c.name()).collect();
    assert_eq!(tools_covered.len(), CATALOGUE.len(), "every tool of the catalogue is in the table");

    let page_urls: [Option<&str>; 5] = [
        Some(PAGE),
        Some("https://other.example/x"),
        Some("http://shop.example/"),
        Some("file:///home/u/page.html"),
        None,
    ];
    let grant_sets = grant_sets(full);
    let mut tally = Tally::default();
    let integrations = integrations();
    let mut contexts = 0;
    for page_url in page_urls {
        for with_observation in [true, false] {
            contexts += 1;
            let plain_ctx = PolicyContext {
                page_url,
                observation: with_observation.then_some(&observation),
                integrations: &integrations,
                goal_secrets: &[],
                ..PolicyContext::default()
            };
            for (label, call) in &calls {
                let plain = decide(call, &plain_ctx);
                let here = format!("{label} on {page_url:?} (observation: {with_observation})");
                if decide(call, &plain_ctx) != plain {
                    tally.fail(format!("{here}: not deterministic"));
                }
                // The deny oracle, the read-only rule and stable codes, on the decision without grants.
                let expected = expected_deny(call, &plain_ctx);
                let got = (plain.verdict == Verdict::Deny).then_some(plain.code);
                if got != expected {
                    tally.fail(format!("{here}: deny code {got:?}, the rules say {expected:?}: {plain:?}"));
                }
                if read_only(call, plain_ctx.integrations)
                    && (plain.verdict, plain.code) != (Verdict::Allow, ReasonCode::PolicyReadOnly)
                {
                    tally.fail(format!("{here}: a read-only tool got {plain:?}"));
                }
                if plain.verdict == Verdict::Allow && !read_only(call, plain_ctx.integrations) {
                    tally.fail(format!("{here}: an action allowed without a grant: {plain:?}"));
                }
                let serialised = serde_json::to_value(plain.code).unwrap();
                if serialised != json!(plain.code.as_str()) || !plain.code.as_str().starts_with("POLICY_") {
                    tally.fail(format!("{here}: code {:?} serialises as {serialised}", plain.code.as_str()));
                }
                let secret_fill = with_observation
                    && match call {
                        ToolCall::Type(a) => Some(a.handle_id.as_str()),
                        ToolCall::Select(a) => Some(a.handle_id.as_str()),
                        _ => None,
                    }
                    .and_then(|h| observation.element(h))
                    .is_some_and(|e| e.field_kind.is_some_and(FieldKind::is_secret));

                for (grant_label, grants) in &grant_sets {
                    let ctx = PolicyContext { grants, ..plain_ctx };
                    let decision = if grants.is_empty() { plain.clone() } else { decide(call, &ctx) };
                    let here = format!("{here} with grants [{grant_label}]");
                    tally.decisions += 1;
                    *tally.by_verdict.entry(verdict_name(decision.verdict)).or_default() += 1;
                    if decision.verdict == Verdict::Deny {
                        *tally.deny_codes.entry(decision.code.as_str()).or_default() += 1;
                        if !DENY_CODES.contains(&decision.code) {
                            tally.fail(format!("{here}: a deny with code {}", decision.code.as_str()));
                        }
                    }
                    if secret_fill {
                        tally.secret_field_cases += 1;
                        if decision.verdict == Verdict::Deny {
                            tally.secret_field_denied += 1;
                        } else {
                            tally.fail(format!("{here}: a secret field was not denied: {decision:?}"));
                        }
                    }
                    match (plain.verdict, decision.verdict) {
                        (Verdict::Deny, after) => {
                            if after == Verdict::Allow {
                                tally.deny_to_allow += 1;
                            }
                            if decision != plain {
                                tally.deny_changed += 1;
                                tally.fail(format!("{here}: a grant changed a deny {plain:?} into {decision:?}"));
                            }
                        }
                        (Verdict::Allow, _) => {
                            if decision != plain {
                                tally.allow_changed += 1;
                                tally.fail(format!("{here}: a grant changed an allow into {decision:?}"));
                            }
                        }
                        (Verdict::Ask, after) => {
                            let should_allow = expected_allow_by_grant(call, &ctx, &plain, grants);
                            match after {
                                Verdict::Allow => {
                                    tally.ask_to_allow += 1;
                                    if !should_allow || decision.code != ReasonCode::PolicySiteGrant {
                                        tally.fail(format!("{here}: allowed without a matching grant: {decision:?}"));
                                    }
                                }
                                Verdict::Ask => {
                                    if should_allow {
                                        tally.fail(format!("{here}: a matching grant did not allow: {decision:?}"));
                                    }
                                    if decision != plain {
                                        tally.fail(format!("{here}: a grant changed an ask: {plain:?} → {decision:?}"));
                                    }
                                }
                                Verdict::Deny => {
                                    tally.ask_to_deny += 1;
                                    tally.fail(format!("{here}: a grant turned an ask into {decision:?}"));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    let report = json!({
        "part": "gate",
        "scale": if full { "full" } else { "ci" },
        "cases": tally.decisions,
        "tools": CATALOGUE.len(),
        "calls": calls.len(),
        "field_kinds": FIELD_KINDS.len(),
        "capabilities": CAPABILITIES.len(),
        "contexts": contexts,
        "grant_sets": grant_sets.len(),
        "decisions": tally.by_verdict,
        "deny_codes": tally.deny_codes,
        "deny_to_allow_flips": tally.deny_to_allow,
        "deny_changed_by_grant": tally.deny_changed,
        "allow_changed_by_grant": tally.allow_changed,
        "ask_to_allow_by_grant": tally.ask_to_allow,
        "ask_to_deny_by_grant": tally.ask_to_deny,
        "secret_field_cases": tally.secret_field_cases,
        "secret_field_denied": tally.secret_field_denied,
        "failures": tally.failure_count,
        "seconds": started.elapsed().as_secs_f64(),
    });
    write_report("gate", &report);
    eprintln!("{report}");

    assert!(tally.failures.is_empty(), "{} failures, the first:\n{}", tally.failure_count, tally.failures.join("\n"));
    assert_eq!(tally.deny_to_allow, 0);
    assert_eq!(tally.secret_field_denied, tally.secret_field_cases);
    // The table exercises every verdict, every deny code and real grants.
    assert!(tally.secret_field_cases > 0 && tally.ask_to_allow > 0);
    for code in DENY_CODES {
        assert!(tally.deny_codes.contains_key(code.as_str()), "no case denied with {}", code.as_str());
    }
    for verdict in ["allow", "ask", "deny"] {
        assert!(tally.by_verdict.get(verdict).is_some_and(|&n| n > 0), "no {verdict}");
    }
}

/// `$LAIKA_SECURITY_OUT/<part>.json`, when the suite collects results.
fn write_report(part: &str, report: &Value) {
    let Some(dir) = std::env::var_os("LAIKA_SECURITY_OUT") else { return };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("create LAIKA_SECURITY_OUT");
    std::fs::write(dir.join(format!("{part}.json")), serde_json::to_string_pretty(report).unwrap())
        .expect("write the security report");
}
