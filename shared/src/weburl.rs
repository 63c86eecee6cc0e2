//! WHATWG URLs, parsed by whoever already has a parser.
//!
//! Native builds use the `url` crate. In the browser (wasm32) the browser's own `URL` does the
//! work: it is the WHATWG parser by definition, and the `url` crate would add its IDNA tables
//! (ICU4X data, ~60 KB gzipped) to an extension whose whole WASM budget is 300 KB. Both sides
//! answer the same questions the same way; `shared/tests/url_cases.json` holds the cases both
//! are tested against (natively in `shared/tests/weburl.rs`, in Chromium by the extension's
//! tests).
//!
//! Only what Laika needs: parse, join, scheme, host, credentials, path, query pairs, origin.

/// A parsed absolute URL.
#[derive(Clone, Debug)]
pub struct WebUrl(imp::Inner);

impl WebUrl {
    /// An absolute URL, or `None`.
    pub fn parse(text: &str) -> Option<WebUrl> {
        imp::parse(text, None).map(WebUrl)
    }

    /// `href` resolved against this URL, or `None` when that is not a URL.
    pub fn join(&self, href: &str) -> Option<WebUrl> {
        imp::parse(href, Some(&self.0)).map(WebUrl)
    }

    /// The scheme, lower case, without the colon.
    pub fn scheme(&self) -> String {
        imp::scheme(&self.0)
    }

    /// The host, or `None` when there is none (or it is empty).
    pub fn host(&self) -> Option<String> {
        imp::host(&self.0).filter(|h| !h.is_empty())
    }

    /// Whether the URL carries a user name or a password.
    pub fn has_credentials(&self) -> bool {
        imp::has_credentials(&self.0)
    }

    /// Removes the user name and password.
    pub fn clear_credentials(&mut self) {
        imp::clear_credentials(&mut self.0)
    }

    /// The path (percent-encoded as serialised).
    pub fn path(&self) -> String {
        imp::path(&self.0)
    }

    /// Whether the URL has a query (even an empty one: `…?`).
    pub fn has_query(&self) -> bool {
        imp::has_query(&self.0)
    }

    /// The query as decoded `application/x-www-form-urlencoded` pairs.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        imp::query_pairs(&self.0)
    }

    /// Replaces the query with `pairs`, form-encoded; no pairs removes the query (and its `?`).
    pub fn set_query_pairs(&mut self, pairs: &[(String, String)]) {
        imp::set_query_pairs(&mut self.0, pairs)
    }

    /// `scheme://host[:port]` (the ASCII serialisation; `null` for opaque origins).
    pub fn origin(&self) -> String {
        imp::origin(&self.0)
    }

    /// The whole URL, serialised.
    pub fn href(&self) -> String {
        imp::href(&self.0)
    }
}

impl std::fmt::Display for WebUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.href())
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    pub type Inner = url::Url;

    pub fn parse(text: &str, base: Option<&Inner>) -> Option<Inner> {
        match base {
            Some(base) => base.join(text).ok(),
            None => url::Url::parse(text).ok(),
        }
    }
    pub fn scheme(url: &Inner) -> String {
        url.scheme().to_string()
    }
    pub fn host(url: &Inner) -> Option<String> {
        url.host_str().map(str::to_string)
    }
    pub fn has_credentials(url: &Inner) -> bool {
        !url.username().is_empty() || url.password().is_some()
    }
    pub fn clear_credentials(url: &mut Inner) {
        let _ = url.set_username("");
        let _ = url.set_password(None);
    }
    pub fn path(url: &Inner) -> String {
        url.path().to_string()
    }
    pub fn has_query(url: &Inner) -> bool {
        url.query().is_some()
    }
    pub fn query_pairs(url: &Inner) -> Vec<(String, String)> {
        url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
    }
    pub fn set_query_pairs(url: &mut Inner, pairs: &[(String, String)]) {
        if pairs.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(pairs);
        }
    }
    pub fn origin(url: &Inner) -> String {
        url.origin().ascii_serialization()
    }
    pub fn href(url: &Inner) -> String {
        url.as_str().to_string()
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use js_sys::{Array, Function, Object, Reflect};
    use wasm_bindgen::{JsCast, JsValue};

    /// A JS `URL` object.
    pub type Inner = Object;

    fn get(object: &JsValue, name: &str) -> JsValue {
        Reflect::get(object, &name.into()).unwrap_or(JsValue::UNDEFINED)
    }
    fn get_string(object: &JsValue, name: &str) -> String {
        get(object, name).as_string().unwrap_or_default()
    }
    fn set_string(object: &JsValue, name: &str, value: &str) {
        let _ = Reflect::set(object, &name.into(), &value.into());
    }
    fn constructor(name: &str) -> Option<Function> {
        get(&js_sys::global(), name).dyn_into::<Function>().ok()
    }

    pub fn parse(text: &str, base: Option<&Inner>) -> Option<Inner> {
        let url = constructor("URL")?;
        let args = match base {
            Some(base) => Array::of2(&text.into(), &get(base, "href")),
            None => Array::of1(&text.into()),
        };
        // `new URL` throws on what is not a URL.
        Reflect::construct(&url, &args).ok().and_then(|u| u.dyn_into::<Object>().ok())
    }
    pub fn scheme(url: &Inner) -> String {
        get_string(url, "protocol").trim_end_matches(':').to_string()
    }
    pub fn host(url: &Inner) -> Option<String> {
        // `hostname` is the host without the port, like the url crate's host_str; IPv6 keeps
        // its brackets in both.
        Some(get_string(url, "hostname")).filter(|h| !h.is_empty())
    }
    pub fn has_credentials(url: &Inner) -> bool {
        !get_string(url, "username").is_empty() || !get_string(url, "password").is_empty()
    }
    pub fn clear_credentials(url: &mut Inner) {
        set_string(url, "username", "");
        set_string(url, "password", "");
    }
    pub fn path(url: &Inner) -> String {
        get_string(url, "pathname")
    }
    pub fn has_query(url: &Inner) -> bool {
        // `search` is "" both for no query and for an empty one; the serialisation tells them
        // apart (a `?` before any fragment).
        !get_string(url, "search").is_empty() || {
            let href = get_string(url, "href");
            href.split('#').next().is_some_and(|before| before.ends_with('?'))
        }
    }
    pub fn query_pairs(url: &Inner) -> Vec<(String, String)> {
        let params = get(url, "searchParams");
        Array::from(&params)
            .iter()
            .map(|pair| {
                let pair = Array::from(&pair);
                (pair.get(0).as_string().unwrap_or_default(), pair.get(1).as_string().unwrap_or_default())
            })
            .collect()
    }
    pub fn set_query_pairs(url: &mut Inner, pairs: &[(String, String)]) {
        if pairs.is_empty() {
            set_string(url, "search", "");
            return;
        }
        let Some(constructor) = constructor("URLSearchParams") else { return };
        let Ok(params) = Reflect::construct(&constructor, &Array::new()) else { return };
        if let Ok(append) = get(&params, "append").dyn_into::<Function>() {
            for (key, value) in pairs {
                let _ = append.call2(&params, &key.into(), &value.into());
            }
        }
        let serialised: String = params.unchecked_into::<Object>().to_string().into();
        set_string(url, "search", &serialised);
    }
    pub fn origin(url: &Inner) -> String {
        get_string(url, "origin")
    }
    pub fn href(url: &Inner) -> String {
        get_string(url, "href")
    }
}
