//! The live-page Dom in a real browser (headless Chromium through wasm-bindgen-test): the same
//! fixture page, observed live and parsed from its HTML, gives the same observation.
#![cfg(target_arch = "wasm32")]

use laika_extension::live_dom::{LiveDom, observe_dom};
use laika_shared::dom::Dom;
use laika_shared::html::HtmlDom;
use laika_shared::observe::{ObserveOptions, observe};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const PAGES: &[(&str, &str)] = &[
    ("article", include_str!("../../tests/fixtures/pages/article.html")),
    ("list", include_str!("../../tests/fixtures/pages/list.html")),
    ("discussion", include_str!("../../tests/fixtures/pages/discussion.html")),
    ("form", include_str!("../../tests/fixtures/pages/form.html")),
    ("signals", include_str!("../../tests/fixtures/pages/signals.html")),
    ("styled", include_str!("../../tests/fixtures/pages/styled.html")),
];

/// Loads a fixture into a same-origin iframe of the test page (scripts in `srcdoc` could run,
/// but the fixtures' inline script only sets a variable) and observes that frame.
async fn load(html: &str) -> LiveDom {
    use wasm_bindgen::JsCast;
    let document = web_sys::window().expect("a window").document().expect("a document");
    let frame: web_sys::HtmlIFrameElement = document.create_element("iframe").unwrap().dyn_into().unwrap();
    let loaded = js_sys::Promise::new(&mut |resolve, _reject| {
        frame.set_onload(Some(&resolve));
    });
    // The parsed reader evaluates the page's sheets for a 1280×800 window; so must the frame.
    frame.set_attribute("style", "width: 1280px; height: 800px").unwrap();
    frame.set_srcdoc(html);
    document.body().expect("a body").append_child(&frame).unwrap();
    wasm_bindgen_futures::JsFuture::from(loaded).await.expect("the frame loads");
    LiveDom::new(frame.content_window().expect("the frame's window")).expect("a live dom")
}

#[wasm_bindgen_test]
async fn live_and_parsed_observations_agree() {
    for (name, html) in PAGES {
        let live = load(html).await;
        let url = "https://site.example/page";
        let from_live = observe(&live, url, &ObserveOptions::default());
        let from_html = observe(&HtmlDom::parse(html), url, &ObserveOptions::default());
        assert_eq!(from_live.text, from_html.text, "{name}: text");
        assert_eq!(from_live.title, from_html.title, "{name}: title");
        assert_eq!(from_live.signals, from_html.signals, "{name}: signals");
        assert_eq!(from_live.outline, from_html.outline, "{name}: outline");
        let kinds = |o: &laika_shared::observation::Observation| {
            o.elements.iter().map(|e| (e.role.clone(), e.text.clone(), e.field_kind)).collect::<Vec<_>>()
        };
        assert_eq!(kinds(&from_live), kinds(&from_html), "{name}: elements");
        assert_eq!(from_live.items.len(), from_html.items.len(), "{name}: items");
        assert_eq!(from_live.comments.len(), from_html.comments.len(), "{name}: comments");
    }
}

#[wasm_bindgen_test]
async fn handles_are_stable_and_find_their_element() {
    let live = load(PAGES[3].1).await;
    let first = observe(&live, "https://site.example/", &ObserveOptions::default());
    let second = observe(&live, "https://site.example/", &ObserveOptions::default());
    let handles =
        |o: &laika_shared::observation::Observation| o.elements.iter().map(|e| e.handle_id.clone()).collect::<Vec<_>>();
    assert_eq!(handles(&first), handles(&second));
    let pay = first.elements.iter().find(|e| e.text == "Pay now").expect("the pay button");
    let element = live.element(&pay.handle_id).expect("the handle finds its element");
    assert_eq!(element.text_content().unwrap_or_default(), "Pay now");
    assert!(live.find_handle("laika-999999").is_none());
}

#[wasm_bindgen_test]
async fn typed_values_never_reach_the_observation() {
    let live = load(PAGES[3].1).await;
    let document = live.document();
    // What the user typed lives in the fields' value properties, not in the markup.
    let name = document.get_element_by_id("name").unwrap();
    js_sys::Reflect::set(&name, &"value".into(), &"typed-by-the-user".into()).unwrap();
    let observation = observe(&live, "https://site.example/", &ObserveOptions::default());
    let json = serde_json::to_string(&observation).unwrap();
    assert!(!json.contains("typed-by-the-user"));
    assert!(!json.contains("hunter2-secret"));
}

#[wasm_bindgen_test]
fn observe_dom_checks_its_arguments() {
    // The test page itself is the live page here.
    let first: serde_json::Value =
        serde_json::from_str(&observe_dom(r#"{"maxChars": 200, "cursor": 0}"#).unwrap()).unwrap();
    assert!(first["cursor"].is_u64() && first["done"].is_boolean(), "{first}");
    let error = observe_dom(r#"{"maxChars": "lots"}"#).unwrap_err().as_string().unwrap();
    assert!(error.contains("TOOL_ARGS_INVALID"), "{error}");
    let error = observe_dom(r#"{"maxChars": 5, "evil": true}"#).unwrap_err().as_string().unwrap();
    assert!(error.contains("TOOL_ARGS_INVALID"), "{error}");
}
