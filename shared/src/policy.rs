//! The Policy Gate: a deterministic decision for every proposed tool call.
//!
//! The model only proposes. For each typed [`ToolCall`] the gate answers
//! [`Verdict::Allow`] (runs without asking), [`Verdict::Ask`] (runs only after the user approves
//! its card) or [`Verdict::Deny`] (never runs), with a reason and, where the action is risky,
//! a [`Warning`] the approval card must show.
//!
//! Defaults (laika-tools.md, "Current policy behavior" and "Autodrive guidance"):
//! - observation, read-only and pure-computation tools allow;
//! - clicks, typing, selection, navigation, search and tab opening ask;
//! - typing or selecting into password, one-time-code or payment fields is denied;
//! - navigation to anything but http(s) is denied;
//! - downloads, logins, payments and destructive actions ask with a warning;
//! - per-site grants ("always allow clicks on this site") turn a plain ask into allow for that
//!   site only. A grant never covers a deny, and never covers an ask that carries a warning.
//!
//! Field kinds come from the observation ([`crate::observation::Element::field_kind`]); a call
//! whose handle is not in the observation is denied, since nobody can say what it would touch.

use crate::observation::{Element, FieldKind, Observation};
use crate::tools::{FindScope, NewSource, ShareTarget, ToolCall};
use crate::weburl::WebUrl;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

/// Why a call needs a closer look before approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Warning {
    /// The action downloads a file.
    Download,
    /// The action signs in or submits credentials.
    Login,
    /// The action pays, buys or subscribes.
    Payment,
    /// The action deletes or cancels something.
    Destructive,
    /// The URL carries a user name or password.
    CredentialsInUrl,
    /// Data leaves this machine for a third-party service.
    External,
    /// A click on a link that leads to another site: navigation away from the page's site,
    /// which a per-site grant never covers.
    LeavesSite,
    /// Typing the password the user wrote in their own request into this site's password field.
    Password,
}

impl Warning {
    pub fn message(self) -> &'static str {
        match self {
            Warning::Download => "This downloads a file to your computer.",
            Warning::Login => "This signs in or submits credentials.",
            Warning::Payment => "This may spend money.",
            Warning::Destructive => "This may delete or cancel something.",
            Warning::CredentialsInUrl => "This URL contains a user name or password.",
            Warning::External => "This sends data to an outside service.",
            Warning::LeavesSite => "This link leads to another site.",
            Warning::Password => "This types the password you wrote in your request into this site's password field.",
        }
    }
}

/// What a per-site grant lets through without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Capability {
    Click,
    Type,
    Select,
    /// Navigation within the granted site (including back, forward and refresh on it).
    Navigate,
    OpenTab,
    Search,
}

/// "Always allow <capability> on <origin>", given by the user on an approval card.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SiteGrant {
    /// An origin as `scheme://host[:port]`.
    pub origin: String,
    pub capability: Capability,
}

/// What the gate knows besides the call itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct PolicyContext<'a> {
    /// The URL of the observed tab, where the call would run.
    pub page_url: Option<&'a str>,
    /// The latest observation of that tab.
    pub observation: Option<&'a Observation>,
    pub grants: &'a [SiteGrant],
    /// The endpoints of the installed local services `integration.invoke` may name.
    pub integrations: &'a [IntegrationEndpoint],
    /// The passwords the user wrote in the request being planned ([`crate::goal::secrets`]): the
    /// only text that may be typed into a password field, on a card of its own. Never a value
    /// from the page.
    pub goal_secrets: &'a [String],
}

/// What an endpoint of a local (LAVS) service does, as its manifest declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndpointKind {
    /// Reads; changes nothing.
    Query,
    /// Changes the service's data.
    Mutation,
    /// A stream of pushes, for views; not something a call can run.
    Subscription,
}

/// One endpoint `integration.invoke` may call: `integration` names the service, `operation` the
/// endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegrationEndpoint {
    pub service: String,
    pub endpoint: String,
    pub kind: EndpointKind,
    /// Whether its handler may reach the network (an http handler, or `networkAccess` other
    /// than `false`): the card then warns that data leaves the machine.
    pub network: bool,
}

/// Stable reason codes, for logs, tests and the approval card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReasonCode {
    PolicyReadOnly,
    PolicyNeedsApproval,
    PolicySiteGrant,
    PolicySensitiveField,
    PolicyBadScheme,
    PolicyUnknownHandle,
    PolicyDisabledElement,
    PolicyUnknownIntegration,
    PolicyNotInvocable,
}

impl ReasonCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ReasonCode::PolicyReadOnly => "POLICY_READ_ONLY",
            ReasonCode::PolicyNeedsApproval => "POLICY_NEEDS_APPROVAL",
            ReasonCode::PolicySiteGrant => "POLICY_SITE_GRANT",
            ReasonCode::PolicySensitiveField => "POLICY_SENSITIVE_FIELD",
            ReasonCode::PolicyBadScheme => "POLICY_BAD_SCHEME",
            ReasonCode::PolicyUnknownHandle => "POLICY_UNKNOWN_HANDLE",
            ReasonCode::PolicyDisabledElement => "POLICY_DISABLED_ELEMENT",
            ReasonCode::PolicyUnknownIntegration => "POLICY_UNKNOWN_INTEGRATION",
            ReasonCode::PolicyNotInvocable => "POLICY_NOT_INVOCABLE",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub verdict: Verdict,
    pub code: ReasonCode,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// The capability an "always on this site" grant would give, when one may be offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grantable: Option<Capability>,
}

impl Decision {
    fn allow(reason: impl Into<String>) -> Self {
        Decision {
            verdict: Verdict::Allow,
            code: ReasonCode::PolicyReadOnly,
            reason: reason.into(),
            warnings: vec![],
            grantable: None,
        }
    }

    fn deny(code: ReasonCode, reason: impl Into<String>) -> Self {
        Decision { verdict: Verdict::Deny, code, reason: reason.into(), warnings: vec![], grantable: None }
    }

    fn ask(reason: impl Into<String>, warnings: Vec<Warning>) -> Self {
        Decision {
            verdict: Verdict::Ask,
            code: ReasonCode::PolicyNeedsApproval,
            reason: reason.into(),
            warnings,
            grantable: None,
        }
    }
}

/// Decides one call. Pure and deterministic: the same call and context give the same decision.
pub fn decide(call: &ToolCall, ctx: &PolicyContext<'_>) -> Decision {
    let page_origin = ctx.page_url.and_then(origin_of);
    match call {
        ToolCall::ObserveDom(_) | ToolCall::GetSelectionLinks(_) | ToolCall::Scroll(_) => {
            Decision::allow("reads or scrolls the page without changing it")
        }
        ToolCall::Summarize(_) => Decision::allow("summarises what Laika already observed"),
        ToolCall::Find(args) if args.scope != Some(FindScope::Web) => Decision::allow("searches within the page"),
        ToolCall::Calculate(_) | ToolCall::MoneyCalculate(_) => Decision::allow("pure computation on this machine"),
        ToolCall::CollectionListSources(_) | ToolCall::TransformListTypes(_) => Decision::allow("reads local data"),

        ToolCall::Click(args) => {
            element_action(ctx, &args.handle_id, Capability::Click, page_origin.as_deref(), "click", None)
        }
        ToolCall::Type(args) => element_action(
            ctx,
            &args.handle_id,
            Capability::Type,
            page_origin.as_deref(),
            "type into",
            Some(&args.text),
        ),
        ToolCall::Select(args) => element_action(
            ctx,
            &args.handle_id,
            Capability::Select,
            page_origin.as_deref(),
            "choose an option of",
            None,
        ),

        ToolCall::Navigate(args) => navigation(ctx, &args.url, Capability::Navigate, "navigate this tab to"),
        ToolCall::OpenTab(args) => navigation(ctx, &args.url, Capability::OpenTab, "open a new tab at"),
        ToolCall::Back(_) | ToolCall::Forward(_) | ToolCall::Refresh(_) => {
            let what = match call {
                ToolCall::Back(_) => "go back",
                ToolCall::Forward(_) => "go forward",
                _ => "reload the page",
            };
            granted_or_ask(ctx, page_origin.as_deref(), Capability::Navigate, format!("{what} in this tab"), vec![])
        }
        ToolCall::Search(args) => granted_or_ask(
            ctx,
            page_origin.as_deref(),
            Capability::Search,
            format!("search the web for {:?}", clip(&args.query)),
            vec![],
        ),
        ToolCall::Find(args) => Decision::ask(format!("search the web for {:?}", clip(&args.query)), vec![]),

        ToolCall::SourceCapture(args) => match check_scheme(&args.url) {
            Err(deny) => deny,
            Ok(warnings) => Decision::ask(format!("fetch {} into a collection", clip(&args.url)), warnings),
        },
        ToolCall::CollectionAddSources(args) => {
            let mut warnings = Vec::new();
            for source in &args.sources {
                if let NewSource::Url { url, .. } = source {
                    match check_scheme(url) {
                        Err(deny) => return deny,
                        Ok(w) => warnings.extend(w),
                    }
                }
            }
            warnings.dedup();
            Decision::ask(format!("add {} sources to a collection", args.sources.len()), warnings)
        }
        ToolCall::CollectionCreate(args) => {
            Decision::ask(format!("create the collection {:?}", clip(&args.title)), vec![])
        }
        ToolCall::SourceRefresh(_) => Decision::ask("fetch a saved source again", vec![]),
        ToolCall::TransformRun(args) => {
            Decision::ask(format!("run the {:?} transform", clip(&args.transform_type)), vec![])
        }
        ToolCall::ArtifactSave(args) => Decision::ask(format!("save {:?}", clip(&args.title)), vec![]),
        ToolCall::ArtifactShare(args) => {
            let warnings = if args.target == Some(ShareTarget::File) { vec![Warning::Download] } else { vec![] };
            Decision::ask("export an artifact", warnings)
        }
        ToolCall::ArtifactOpen(_) => Decision::ask("open an artifact", vec![]),
        ToolCall::IntegrationInvoke(args) => integration(ctx, &args.integration, &args.operation),
    }
}

/// Whether a call the gate asks about may be approved on one card with the other steps of its
/// plan: an ordinary action on an element of this page (a click, typing a value, choosing an
/// option) that carries no warning. A sign-in, a payment, a deletion, a download, a link that
/// leaves the site, a navigation or anything run outside the page asks on its own card.
pub fn asks_together(call: &ToolCall, decision: &Decision) -> bool {
    decision.verdict == Verdict::Ask
        && decision.warnings.is_empty()
        && matches!(call, ToolCall::Click(_) | ToolCall::Type(_) | ToolCall::Select(_))
}

/// `integration.invoke` on a local service's endpoint: a query reads and runs; a mutation asks,
/// naming the service and the endpoint; a subscription is not a call; anything not installed is
/// denied, since nobody can say what it would do.
fn integration(ctx: &PolicyContext<'_>, service: &str, operation: &str) -> Decision {
    let Some(found) = ctx.integrations.iter().find(|e| e.service == service && e.endpoint == operation) else {
        return Decision::deny(
            ReasonCode::PolicyUnknownIntegration,
            format!("no installed local service {:?} has an endpoint {:?}", clip(service), clip(operation)),
        );
    };
    match found.kind {
        EndpointKind::Query => {
            Decision::allow(format!("reads {:?} of the local service {:?}", clip(operation), clip(service)))
        }
        EndpointKind::Mutation => Decision::ask(
            format!("run {:?} of the local service {:?}", clip(operation), clip(service)),
            if found.network { vec![Warning::External] } else { vec![] },
        ),
        EndpointKind::Subscription => Decision::deny(
            ReasonCode::PolicyNotInvocable,
            format!("{:?} of {:?} is a subscription, for views, not a call", clip(operation), clip(service)),
        ),
    }
}

fn element_action(
    ctx: &PolicyContext<'_>,
    handle_id: &str,
    capability: Capability,
    page_origin: Option<&str>,
    verb: &str,
    typed: Option<&str>,
) -> Decision {
    let element = match ctx.observation {
        Some(observation) => match observation.element(handle_id) {
            Some(element) => Some(element),
            None if observation.has_handle(handle_id) => None,
            None => {
                return Decision::deny(
                    ReasonCode::PolicyUnknownHandle,
                    format!("{} is not an element of the latest observation", clip(handle_id)),
                );
            }
        },
        None => None,
    };
    if let Some(element) = element {
        if element.disabled {
            return Decision::deny(ReasonCode::PolicyDisabledElement, "the element is disabled");
        }
        // The password the user wrote in this request, typed into this page's password field:
        // asked on a card of its own, never granted for good.
        if capability == Capability::Type
            && element.field_kind == Some(FieldKind::Password)
            && typed.is_some_and(|text| !text.is_empty() && ctx.goal_secrets.iter().any(|s| s == text))
            && page_origin.is_some()
        {
            let label = Some(clip(&element.text)).filter(|t| !t.is_empty()).unwrap_or_else(|| clip(handle_id));
            return Decision::ask(format!("type the password you gave into {label:?}"), vec![Warning::Password]);
        }
        if matches!(capability, Capability::Type | Capability::Select)
            && let Some(kind) = element.field_kind.filter(|k| k.is_secret())
        {
            return Decision::deny(
                ReasonCode::PolicySensitiveField,
                format!("Laika never fills {} fields; do it yourself", field_kind_label(kind)),
            );
        }
    }
    let label = element.map(|e| clip(&e.text)).filter(|t| !t.is_empty()).unwrap_or_else(|| clip(handle_id));
    let mut warnings = element.map(element_warnings).unwrap_or_default();
    // A click on a link is a navigation: to another site it is treated like leaving the site
    // by navigate, which a grant for this site does not cover.
    if capability == Capability::Click
        && let Some(target) = element.and_then(|e| e.href.as_deref()).and_then(origin_of)
        && page_origin.is_some_and(|page| page != target)
    {
        warnings.push(Warning::LeavesSite);
    }
    granted_or_ask(ctx, page_origin, capability, format!("{verb} {label:?}"), warnings)
}

fn field_kind_label(kind: FieldKind) -> &'static str {
    match kind {
        FieldKind::Password => "password",
        FieldKind::OneTimeCode => "one-time code",
        _ => "payment",
    }
}

/// Warnings from what an element says and where it leads.
fn element_warnings(element: &Element) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let text = element.text.to_lowercase();
    let has_any = |words: &[&str]| words.iter().any(|w| contains_word(&text, w));
    if element.download || element.href.as_deref().is_some_and(looks_like_download) {
        warnings.push(Warning::Download);
    }
    if has_any(&["log in", "login", "sign in", "signin", "sign on", "log on"]) {
        warnings.push(Warning::Login);
    }
    if element.field_kind == Some(FieldKind::Email) && has_any(&["password"]) {
        warnings.push(Warning::Login);
    }
    if has_any(&[
        "pay",
        "buy",
        "purchase",
        "checkout",
        "check out",
        "place order",
        "order now",
        "subscribe",
        "donate",
        "add to cart",
        "transfer",
        "send money",
        "wire",
    ]) {
        warnings.push(Warning::Payment);
    }
    if has_any(&[
        "delete",
        "remove",
        "erase",
        "deactivate",
        "close account",
        "cancel",
        "unsubscribe",
        "discard",
        "reset",
    ]) {
        warnings.push(Warning::Destructive);
    }
    warnings.dedup();
    warnings
}

/// Whole-word (or whole-phrase) match, so "paying" and "repay" do not both count as "pay"
/// while "Pay now" does.
fn contains_word(haystack: &str, word: &str) -> bool {
    haystack.match_indices(word).any(|(i, m)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

const DOWNLOAD_EXTENSIONS: &[&str] = &[
    "exe", "msi", "dmg", "pkg", "deb", "rpm", "apk", "appimage", "zip", "rar", "7z", "tar", "gz", "tgz", "bz2", "xz",
    "iso", "img", "bin", "jar", "bat", "cmd", "sh", "ps1", "scr", "vbs",
];

fn looks_like_download(url: &str) -> bool {
    let path = WebUrl::parse(url).map(|u| u.path().to_lowercase()).unwrap_or_else(|| url.to_lowercase());
    path.rsplit_once('.').is_some_and(|(_, ext)| DOWNLOAD_EXTENSIONS.contains(&ext))
}

/// http(s) only; a warning list for the ones that pass.
fn check_scheme(url: &str) -> Result<Vec<Warning>, Decision> {
    let parsed = match WebUrl::parse(url.trim()) {
        Some(parsed) => parsed,
        None => {
            return Err(Decision::deny(ReasonCode::PolicyBadScheme, format!("{} is not an absolute URL", clip(url))));
        }
    };
    if !matches!(parsed.scheme().as_str(), "http" | "https") || parsed.host().is_none() {
        return Err(Decision::deny(
            ReasonCode::PolicyBadScheme,
            format!("only http and https pages may be opened, not {}:", parsed.scheme()),
        ));
    }
    let mut warnings = Vec::new();
    if parsed.has_credentials() {
        warnings.push(Warning::CredentialsInUrl);
    }
    if looks_like_download(url) {
        warnings.push(Warning::Download);
    }
    Ok(warnings)
}

fn navigation(ctx: &PolicyContext<'_>, url: &str, capability: Capability, verb: &str) -> Decision {
    match check_scheme(url) {
        Err(deny) => deny,
        // A navigation grant covers only destinations on the granted site.
        Ok(warnings) => {
            granted_or_ask(ctx, origin_of(url).as_deref(), capability, format!("{verb} {}", clip(url)), warnings)
        }
    }
}

fn granted_or_ask(
    ctx: &PolicyContext<'_>,
    origin: Option<&str>,
    capability: Capability,
    reason: String,
    warnings: Vec<Warning>,
) -> Decision {
    // Navigation grants need the page to be on the granted site too, so that a grant for one
    // site is never used to leave another.
    let page_origin = ctx.page_url.and_then(origin_of);
    let on_site = |grant: &SiteGrant| {
        Some(grant.origin.as_str()) == origin
            && (capability != Capability::Navigate || page_origin.as_deref() == Some(grant.origin.as_str()))
    };
    let granted = origin.is_some() && ctx.grants.iter().any(|g| g.capability == capability && on_site(g));
    if granted && warnings.is_empty() {
        return Decision {
            verdict: Verdict::Allow,
            code: ReasonCode::PolicySiteGrant,
            reason: format!("{reason} (you always allow this on {})", origin.unwrap_or_default()),
            warnings,
            grantable: None,
        };
    }
    let grantable = (warnings.is_empty() && origin.is_some()).then_some(capability);
    Decision { grantable, ..Decision::ask(reason, warnings) }
}

/// `scheme://host[:port]` of an http(s) URL.
pub fn origin_of(url: &str) -> Option<String> {
    let parsed = WebUrl::parse(url.trim())?;
    if !matches!(parsed.scheme().as_str(), "http" | "https") {
        return None;
    }
    Some(parsed.origin())
}

fn clip(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= 80 {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(79).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::RawToolCall;
    use serde_json::json;

    fn call(name: &str, arguments: serde_json::Value) -> ToolCall {
        RawToolCall { name: name.into(), arguments: arguments.as_object().cloned().unwrap_or_default() }
            .to_typed()
            .unwrap()
    }

    fn form() -> Observation {
        let field = |id: &str, kind: FieldKind, text: &str| Element {
            handle_id: id.into(),
            role: "textbox".into(),
            text: text.into(),
            field_kind: Some(kind),
            ..Default::default()
        };
        let button = |id: &str, text: &str| Element {
            handle_id: id.into(),
            role: "button".into(),
            text: text.into(),
            ..Default::default()
        };
        Observation {
            url: "https://shop.example/checkout".into(),
            elements: vec![
                field("laika-1", FieldKind::Text, "Name"),
                field("laika-2", FieldKind::Password, "Password"),
                field("laika-3", FieldKind::OneTimeCode, "Code"),
                field("laika-4", FieldKind::Payment, "Card number"),
                button("laika-5", "Delete account"),
                button("laika-6", "Next page"),
                button("laika-7", "Sign in"),
                button("laika-8", "Pay now"),
                Element {
                    handle_id: "laika-9".into(),
                    role: "link".into(),
                    text: "Get it".into(),
                    href: Some("https://x.example/setup.exe".into()),
                    ..Default::default()
                },
                Element {
                    handle_id: "laika-10".into(),
                    role: "button".into(),
                    text: "Go".into(),
                    disabled: true,
                    ..Default::default()
                },
                field("laika-11", FieldKind::Payment, "Expiry month"),
                Element {
                    handle_id: "laika-12".into(),
                    role: "link".into(),
                    text: "Your cart".into(),
                    href: Some("https://shop.example/cart".into()),
                    ..Default::default()
                },
                Element {
                    handle_id: "laika-13".into(),
                    role: "link".into(),
                    text: "Claim your reward".into(),
                    href: Some("https://attacker.example/reward".into()),
                    ..Default::default()
                },
                button("laika-14", "Transfer funds"),
            ],
            ..Default::default()
        }
    }

    fn ctx<'a>(observation: &'a Observation, grants: &'a [SiteGrant]) -> PolicyContext<'a> {
        PolicyContext {
            page_url: Some("https://shop.example/checkout"),
            observation: Some(observation),
            grants,
            integrations: &[],
            goal_secrets: &[],
        }
    }

    #[test]
    fn read_only_tools_allow() {
        let o = form();
        for (name, args) in [
            ("browser.observe_dom", json!({})),
            ("browser.get_selection_links", json!({})),
            ("browser.scroll", json!({ "deltaY": 300 })),
            ("content.summarize", json!({})),
            ("content.find", json!({ "query": "x" })),
            ("app.calculate", json!({ "expression": "1+1" })),
            ("app.money_calculate", json!({ "expression": "1", "currency": "EUR" })),
            ("collection.list_sources", json!({ "collectionId": "c" })),
            ("transform.list_types", json!({})),
        ] {
            assert_eq!(decide(&call(name, args), &ctx(&o, &[])).verdict, Verdict::Allow, "{name}");
        }
    }

    #[test]
    fn actions_ask() {
        let o = form();
        for (name, args) in [
            ("browser.click", json!({ "handleId": "laika-6" })),
            ("browser.type", json!({ "handleId": "laika-1", "text": "Ada" })),
            ("browser.navigate", json!({ "url": "https://example.com/" })),
            ("browser.open_tab", json!({ "url": "http://example.com/" })),
            ("browser.back", json!({})),
            ("browser.forward", json!({})),
            ("browser.refresh", json!({})),
            ("search", json!({ "query": "rust" })),
            ("content.find", json!({ "query": "rust", "scope": "web" })),
        ] {
            let decision = decide(&call(name, args), &ctx(&o, &[]));
            assert_eq!(decision.verdict, Verdict::Ask, "{name}");
            assert!(decision.warnings.is_empty(), "{name}: {:?}", decision.warnings);
        }
    }

    #[test]
    fn secret_fields_deny_typing_and_selecting() {
        let o = form();
        for handle in ["laika-2", "laika-3", "laika-4"] {
            let d = decide(&call("browser.type", json!({ "handleId": handle, "text": "x" })), &ctx(&o, &[]));
            assert_eq!((d.verdict, d.code), (Verdict::Deny, ReasonCode::PolicySensitiveField), "{handle}");
        }
        let d = decide(&call("browser.select", json!({ "handleId": "laika-11", "value": "12" })), &ctx(&o, &[]));
        assert_eq!(d.verdict, Verdict::Deny);
    }

    #[test]
    fn bad_schemes_deny() {
        let o = form();
        for url in [
            "javascript:alert(1)",
            "data:text/html,x",
            "file:///etc/passwd",
            "chrome://settings",
            "ftp://x.example/",
            "not a url",
            "https://",
        ] {
            for tool in ["browser.navigate", "browser.open_tab"] {
                let d = decide(&call(tool, json!({ "url": url })), &ctx(&o, &[]));
                assert_eq!((d.verdict, d.code), (Verdict::Deny, ReasonCode::PolicyBadScheme), "{tool} {url}");
            }
        }
        let d = decide(&call("source.capture", json!({ "collectionId": "c", "url": "file:///x" })), &ctx(&o, &[]));
        assert_eq!(d.verdict, Verdict::Deny);
        let d = decide(
            &call(
                "collection.add_sources",
                json!({ "collectionId": "c", "sources": [{ "type": "url", "url": "javascript:x" }] }),
            ),
            &ctx(&o, &[]),
        );
        assert_eq!(d.verdict, Verdict::Deny);
    }

    #[test]
    fn risky_actions_ask_with_warnings() {
        let o = form();
        let warn = |name: &str, args| decide(&call(name, args), &ctx(&o, &[]));
        assert_eq!(warn("browser.click", json!({ "handleId": "laika-5" })).warnings, [Warning::Destructive]);
        assert_eq!(warn("browser.click", json!({ "handleId": "laika-7" })).warnings, [Warning::Login]);
        assert_eq!(warn("browser.click", json!({ "handleId": "laika-8" })).warnings, [Warning::Payment]);
        assert_eq!(
            warn("browser.click", json!({ "handleId": "laika-9" })).warnings,
            [Warning::Download, Warning::LeavesSite]
        );
        assert_eq!(warn("browser.navigate", json!({ "url": "https://x.example/a.zip" })).warnings, [Warning::Download]);
        assert_eq!(
            warn("browser.navigate", json!({ "url": "https://u:p@x.example/" })).warnings,
            [Warning::CredentialsInUrl]
        );
        for d in [
            warn("browser.click", json!({ "handleId": "laika-5" })),
            warn("browser.navigate", json!({ "url": "https://x.example/a.zip" })),
        ] {
            assert_eq!(d.verdict, Verdict::Ask);
            assert_eq!(d.grantable, None, "warned asks offer no site grant");
        }
    }

    #[test]
    fn integrations_read_freely_ask_to_change_and_deny_the_unknown() {
        let endpoint = |endpoint: &str, kind, network| IntegrationEndpoint {
            service: "todo-manager".into(),
            endpoint: endpoint.into(),
            kind,
            network,
        };
        let installed = [
            endpoint("listTodos", EndpointKind::Query, false),
            endpoint("addTodo", EndpointKind::Mutation, false),
            endpoint("syncTodos", EndpointKind::Mutation, true),
            endpoint("watchTodos", EndpointKind::Subscription, false),
        ];
        let ctx = PolicyContext { integrations: &installed, ..PolicyContext::default() };
        let invoke = |service: &str, operation: &str| {
            decide(
                &call(
                    "integration.invoke",
                    json!({ "integration": service, "operation": operation, "payload": {}, "idempotencyKey": "k" }),
                ),
                &ctx,
            )
        };
        let read = invoke("todo-manager", "listTodos");
        assert_eq!((read.verdict, read.code), (Verdict::Allow, ReasonCode::PolicyReadOnly));
        let add = invoke("todo-manager", "addTodo");
        assert_eq!((add.verdict, add.code), (Verdict::Ask, ReasonCode::PolicyNeedsApproval));
        assert!(add.reason.contains("\"addTodo\"") && add.reason.contains("\"todo-manager\""), "{}", add.reason);
        assert_eq!((add.warnings.as_slice(), add.grantable), (&[][..], None), "no site grant covers a service");
        assert_eq!(invoke("todo-manager", "syncTodos").warnings, [Warning::External]);
        let watch = invoke("todo-manager", "watchTodos");
        assert_eq!((watch.verdict, watch.code), (Verdict::Deny, ReasonCode::PolicyNotInvocable));
        for (service, operation) in [("todo-manager", "dropAll"), ("mail", "listTodos"), ("Todo-Manager", "listTodos")]
        {
            let d = invoke(service, operation);
            assert_eq!(
                (d.verdict, d.code),
                (Verdict::Deny, ReasonCode::PolicyUnknownIntegration),
                "{service}.{operation}"
            );
        }
    }

    #[test]
    fn unknown_and_disabled_targets_deny() {
        let o = form();
        let d = decide(&call("browser.click", json!({ "handleId": "laika-404" })), &ctx(&o, &[]));
        assert_eq!((d.verdict, d.code), (Verdict::Deny, ReasonCode::PolicyUnknownHandle));
        let d = decide(&call("browser.click", json!({ "handleId": "laika-10" })), &ctx(&o, &[]));
        assert_eq!((d.verdict, d.code), (Verdict::Deny, ReasonCode::PolicyDisabledElement));
    }

    #[test]
    fn site_grants_allow_plain_asks_on_their_site_only() {
        let o = form();
        let grants = [
            SiteGrant { origin: "https://shop.example".into(), capability: Capability::Click },
            SiteGrant { origin: "https://shop.example".into(), capability: Capability::Type },
            SiteGrant { origin: "https://shop.example".into(), capability: Capability::Navigate },
        ];
        let click = call("browser.click", json!({ "handleId": "laika-6" }));
        let d = decide(&click, &ctx(&o, &grants));
        assert_eq!((d.verdict, d.code), (Verdict::Allow, ReasonCode::PolicySiteGrant));
        // Offered before it is given:
        assert_eq!(decide(&click, &ctx(&o, &[])).grantable, Some(Capability::Click));
        // Another site: no.
        let elsewhere = PolicyContext { page_url: Some("https://other.example/"), grants: &grants, ..ctx(&o, &[]) };
        assert_eq!(decide(&click, &elsewhere).verdict, Verdict::Ask);
        // Same site, navigation inside it: allowed; leaving it: asks.
        let inside = call("browser.navigate", json!({ "url": "https://shop.example/cart" }));
        assert_eq!(decide(&inside, &ctx(&o, &grants)).verdict, Verdict::Allow);
        let outside = call("browser.navigate", json!({ "url": "https://evil.example/" }));
        assert_eq!(decide(&outside, &ctx(&o, &grants)).verdict, Verdict::Ask);
        // A grant never covers a deny, nor a warned ask.
        let password = call("browser.type", json!({ "handleId": "laika-2", "text": "hunter2" }));
        assert_eq!(decide(&password, &ctx(&o, &grants)).verdict, Verdict::Deny);
        let delete = call("browser.click", json!({ "handleId": "laika-5" }));
        assert_eq!(decide(&delete, &ctx(&o, &grants)).verdict, Verdict::Ask);
        let js = call("browser.navigate", json!({ "url": "javascript:alert(1)" }));
        assert_eq!(decide(&js, &ctx(&o, &grants)).verdict, Verdict::Deny);
        // A click grant covers links on the site, not a link to another site (that would leave
        // the site past the rule navigation grants keep).
        let on_site = call("browser.click", json!({ "handleId": "laika-12" }));
        assert_eq!(decide(&on_site, &ctx(&o, &grants)).verdict, Verdict::Allow);
        let off_site = call("browser.click", json!({ "handleId": "laika-13" }));
        let d = decide(&off_site, &ctx(&o, &grants));
        assert_eq!((d.verdict, d.warnings.as_slice(), d.grantable), (Verdict::Ask, &[Warning::LeavesSite][..], None));
        // Moving money is a payment, whatever the grants.
        let transfer = call("browser.click", json!({ "handleId": "laika-14" }));
        let d = decide(&transfer, &ctx(&o, &grants));
        assert_eq!((d.verdict, d.warnings.as_slice()), (Verdict::Ask, &[Warning::Payment][..]));
    }

    #[test]
    fn without_an_observation_element_actions_still_ask() {
        let d = decide(&call("browser.type", json!({ "handleId": "laika-1", "text": "x" })), &PolicyContext::default());
        assert_eq!(d.verdict, Verdict::Ask);
    }

    #[test]
    fn word_matching_is_whole_word() {
        assert!(contains_word("pay now", "pay"));
        assert!(!contains_word("repayment plan", "pay"));
        assert!(contains_word("delete account", "delete"));
        assert!(!contains_word("undeleted", "delete"));
    }
}
