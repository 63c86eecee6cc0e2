//! The sidecar's DOM renderer in a real browser (headless Chromium through wasm-bindgen-test):
//! every node type becomes the right elements, and nothing a model writes (or a page smuggles
//! into a model's answer) becomes markup, an event handler or a dangerous link.
#![cfg(target_arch = "wasm32")]

use laika_extension::render_dom::{
    LINK_REL, RENDER_ATTRIBUTES, RENDER_TAGS, ROOT_CLASS, render_doc, render_markdown, render_value,
};
use laika_shared::render::{
    Block, Doc, Inline, ListItem, TableCell, TableRow, Text, is_allowed_href, is_allowed_language, sanitize,
};
use serde_json::{Value, json};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Document, Element, Node};

wasm_bindgen_test_configure!(run_in_browser);

const CANARY: &str = "__laika_xss";

fn document() -> Document {
    web_sys::window().expect("a window").document().expect("a document")
}

fn text(text: &str) -> Inline {
    Inline::Text(Text { text: text.into() })
}

fn link(href: &str, label: &str) -> Inline {
    Inline::Link { href: href.into(), children: vec![Text { text: label.into() }] }
}

fn paragraph(children: Vec<Inline>) -> Block {
    Block::Paragraph { children }
}

/// The rendered tree as a compact string: tags with their attributes (in setting order), text as
/// it is, nothing escaped. Written here rather than read from `outerHTML`, so the test does not
/// depend on the browser's serialiser.
fn shape(node: &Node) -> String {
    if node.node_type() == Node::TEXT_NODE {
        return node.node_value().unwrap_or_default();
    }
    let element: &Element = node.unchecked_ref();
    let tag = element.local_name();
    let mut out = format!("<{tag}");
    for name in element.get_attribute_names().iter() {
        let name = name.as_string().unwrap();
        out.push_str(&format!(" {name}=\"{}\"", element.get_attribute(&name).unwrap()));
    }
    out.push('>');
    let children = node.child_nodes();
    for index in 0..children.length() {
        out.push_str(&shape(&children.item(index).unwrap()));
    }
    if tag != "br" {
        out.push_str(&format!("</{tag}>"));
    }
    out
}

/// The root and every element under it.
fn elements(root: &Element) -> Vec<Element> {
    let all = root.query_selector_all("*").unwrap();
    let mut out = vec![root.clone()];
    out.extend((0..all.length()).map(|index| all.item(index).unwrap().unchecked_into::<Element>()));
    out
}

/// Every element's tag and every attribute is on the allowlists; no attribute is an event
/// handler; every href is an allowed one and every code class names an allowed language.
fn assert_safe(root: &Element) {
    assert_eq!(root.local_name(), "div");
    assert_eq!(root.get_attribute("class").as_deref(), Some(ROOT_CLASS));
    for element in elements(root) {
        let tag = element.local_name();
        assert!(RENDER_TAGS.contains(&tag.as_str()), "unexpected element <{tag}>");
        assert_eq!(element.namespace_uri().as_deref(), Some("http://www.w3.org/1999/xhtml"));
        for name in element.get_attribute_names().iter() {
            let name = name.as_string().unwrap();
            assert!(!name.to_ascii_lowercase().starts_with("on"), "event handler attribute {name} on <{tag}>");
            assert!(
                RENDER_ATTRIBUTES.contains(&(tag.as_str(), name.as_str())),
                "unexpected attribute {name} on <{tag}>"
            );
        }
        match tag.as_str() {
            "a" => {
                let href = element.get_attribute("href").expect("every rendered link has an href");
                assert!(is_allowed_href(&href), "{href}");
                assert!(href.starts_with("https://") || href.starts_with("http://") || href.starts_with("mailto:"));
                assert_eq!(element.get_attribute("rel").as_deref(), Some(LINK_REL));
                assert_eq!(element.get_attribute("target").as_deref(), Some("_blank"));
            }
            "code" => {
                if let Some(class) = element.get_attribute("class") {
                    let language = class.strip_prefix("language-").expect("a language class");
                    assert!(is_allowed_language(language), "{class}");
                }
            }
            "div" => assert!(element.is_same_node(Some(root)), "only the root is a div"),
            _ => {}
        }
    }
}

fn clear_canary() {
    let window = web_sys::window().unwrap();
    js_sys::Reflect::delete_property(&window, &JsValue::from_str(CANARY)).unwrap();
}

/// Gives anything a payload could have started (an image's error event, a frame's load) time to
/// run, then checks it did not.
async fn assert_canary_unset() {
    gloo_timers::future::TimeoutFuture::new(300).await;
    let window = web_sys::window().unwrap();
    let value = js_sys::Reflect::get(&window, &JsValue::from_str(CANARY)).unwrap();
    assert!(value.is_undefined(), "a payload ran: window.{CANARY} = {value:?}");
}

#[wasm_bindgen_test]
fn every_node_type_renders_to_its_elements() {
    let doc = Doc {
        children: vec![
            Block::Heading { level: 0, children: vec![text("Zero")] },
            Block::Heading { level: 3, children: vec![text("Three")] },
            Block::Heading { level: 9, children: vec![text("Nine")] },
            paragraph(vec![
                text("See "),
                link("https://example.com/a?b=1#c", "the site"),
                text(", write to "),
                link("mailto:ada@example.com", "Ada"),
                text(", or "),
                link("HTTPS://Example.COM", ""),
                text("."),
            ]),
            paragraph(vec![text("line one\nline two\r\nline three\n")]),
            Block::List {
                ordered: false,
                items: vec![
                    ListItem { children: vec![paragraph(vec![text("first")])] },
                    ListItem {
                        children: vec![Block::List {
                            ordered: true,
                            items: vec![ListItem { children: vec![paragraph(vec![text("nested")])] }],
                        }],
                    },
                ],
            },
            Block::Blockquote { children: vec![paragraph(vec![text("quoted")])] },
            Block::CodeBlock { language: Some("rust".into()), text: "fn main() {\n    <b>\n}".into() },
            Block::CodeBlock { language: Some("not a language".into()), text: "x".into() },
            Block::CodeBlock { language: None, text: String::new() },
            Block::Table {
                rows: vec![
                    TableRow {
                        cells: vec![
                            TableCell { header: true, children: vec![text("Name")] },
                            TableCell { header: true, children: vec![text("Link")] },
                        ],
                    },
                    TableRow {
                        cells: vec![
                            TableCell { header: true, children: vec![text("Ada")] },
                            TableCell { header: false, children: vec![link("https://ada.example/", "home")] },
                        ],
                    },
                ],
            },
            Block::Table {
                rows: vec![TableRow { cells: vec![TableCell { header: false, children: vec![text("only")] }] }],
            },
        ],
    };
    let root = render_doc(&document(), &doc).unwrap();
    assert_safe(&root);
    let a = |href: &str, label: &str| {
        format!(r#"<a href="{href}" rel="noopener noreferrer nofollow" target="_blank">{label}</a>"#)
    };
    let expected = [
        r#"<div class="laika-render">"#.to_string(),
        "<h1>Zero</h1><h3>Three</h3><h6>Nine</h6>".into(),
        format!(
            "<p>See {}, write to {}, or {}.</p>",
            a("https://example.com/a?b=1#c", "the site"),
            a("mailto:ada@example.com", "Ada"),
            a("https://example.com/", "https://example.com/")
        ),
        "<p>line one<br>line two<br>line three<br></p>".into(),
        "<ul><li><p>first</p></li><li><ol><li><p>nested</p></li></ol></li></ul>".into(),
        "<blockquote><p>quoted</p></blockquote>".into(),
        "<pre><code class=\"language-rust\">fn main() {\n    <b>\n}</code></pre>".into(),
        "<pre><code>x</code></pre><pre><code></code></pre>".into(),
        format!(
            "<table><thead><tr><th>Name</th><th>Link</th></tr></thead><tbody><tr><th>Ada</th><td>{}</td></tr></tbody></table>",
            a("https://ada.example/", "home")
        ),
        "<table><tbody><tr><td>only</td></tr></tbody></table>".into(),
        "</div>".into(),
    ]
    .concat();
    assert_eq!(shape(&root), expected);
    // The code is one text node: `<b>` in it is text, not an element.
    assert!(root.query_selector("b").unwrap().is_none());
    // The renderer makes a detached tree of the given document.
    assert!(root.parent_node().is_none());
    assert!(root.owner_document().unwrap().is_same_node(Some(&document())));
}

#[wasm_bindgen_test]
fn deep_documents_built_in_code_stop_at_the_depth_cap() {
    let mut block = paragraph(vec![text("bottom")]);
    for _ in 0..100 {
        block = Block::Blockquote { children: vec![block] };
    }
    let root = render_doc(&document(), &Doc { children: vec![block] }).unwrap();
    assert_safe(&root);
    assert!(root.query_selector_all("blockquote").unwrap().length() < 40);
    assert!(!root.text_content().unwrap().contains("bottom"));
}

#[wasm_bindgen_test]
fn render_value_sanitises_and_counts_what_it_dropped() {
    let value = json!({"type": "doc", "children": [
        {"type": "heading", "level": 2, "children": [{"type": "text", "text": "Kept"}]},
        {"type": "script", "text": "window.__laika_xss = 1"},
        {"type": "iframe", "src": "https://evil.example/"},
        {"type": "paragraph", "children": [
            {"type": "text", "text": "ok "},
            {"type": "image", "src": "x"},
            {"type": "link", "href": "javascript:alert(1)", "children": [{"type": "text", "text": "bad link"}]},
            {"type": "link", "href": "https://good.example/", "children": [{"type": "text", "text": "good link"}]}
        ]},
        {"type": "code_block", "language": "<script>", "text": "code"},
        {"type": "list", "ordered": false, "items": [
            {"type": "list_item", "children": [{"type": "paragraph", "children": [{"type": "text", "text": "item"}]}]},
            {"type": "video"}
        ]},
        {"type": "paragraph", "children": [{"type": "text"}]}
    ]});
    let expected_dropped = sanitize(&value).dropped.len();
    assert!(expected_dropped >= 6, "{expected_dropped}");
    let (root, dropped) = render_value(&document(), &value).unwrap();
    assert_eq!(dropped, expected_dropped);
    assert_safe(&root);
    assert_eq!(
        shape(&root),
        concat!(
            r#"<div class="laika-render"><h2>Kept</h2>"#,
            r#"<p>ok bad link<a href="https://good.example/" rel="noopener noreferrer nofollow" target="_blank">good link</a></p>"#,
            "<pre><code>code</code></pre><ul><li><p>item</p></li></ul></div>"
        )
    );

    // A valid document drops nothing; a bare string becomes a paragraph (and is counted).
    let (_, dropped) = render_value(
        &document(),
        &json!({"type": "doc", "children": [{"type": "paragraph", "children": [{"type": "text", "text": "fine"}]}]}),
    )
    .unwrap();
    assert_eq!(dropped, 0);
    let (root, dropped) = render_value(&document(), &json!("just a string")).unwrap();
    assert!(dropped > 0);
    assert_eq!(shape(&root), r#"<div class="laika-render"><p>just a string</p></div>"#);
}

const BAD_HREFS: &[&str] = &[
    "javascript:window.__laika_xss=1",
    "JaVaScRiPt:window.__laika_xss=1",
    " javascript:window.__laika_xss=1",
    "java\tscript:window.__laika_xss=1",
    "java\nscript:window.__laika_xss=1",
    "javascript&colon;window.__laika_xss=1",
    "\u{0}javascript:window.__laika_xss=1",
    "data:text/html,<script>window.__laika_xss=1</script>",
    "data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19sYWlrYV94c3M9MTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "blob:https://site.example/0b0f-1",
    "about:blank",
    "chrome://settings",
    "ftp://files.example/",
    "//evil.example/path",
    "/relative/path",
    "relative",
    "#fragment",
    "?query",
    "https://bank.example@evil.example/",
    "https://user:pass@evil.example/",
    "https://",
    "mailto:",
    "",
];

#[wasm_bindgen_test]
fn disallowed_hrefs_never_become_an_href() {
    for href in BAD_HREFS {
        assert!(!is_allowed_href(href), "{href:?}");
        // Built in code, past the sanitiser: the renderer checks again.
        let doc = Doc { children: vec![paragraph(vec![link(href, "label")])] };
        let root = render_doc(&document(), &doc).unwrap();
        assert_safe(&root);
        assert!(root.query_selector("a").unwrap().is_none(), "{href:?} became a link");
        assert_eq!(root.text_content().unwrap(), "label", "{href:?}: the link's text stays");
        // Through the sanitiser.
        let value = json!({"type": "doc", "children": [{"type": "paragraph", "children": [
            {"type": "link", "href": href, "children": [{"type": "text", "text": "label"}]}
        ]}]});
        let (root, dropped) = render_value(&document(), &value).unwrap();
        assert!(dropped > 0, "{href:?}");
        assert!(root.query_selector("a").unwrap().is_none(), "{href:?} became a link");
        // A disallowed link without text shows nothing rather than its href.
        let doc = Doc { children: vec![paragraph(vec![link(href, ""), text("after")])] };
        let root = render_doc(&document(), &doc).unwrap();
        assert_eq!(root.text_content().unwrap(), "after", "{href:?}");
    }
}

const XSS: &[&str] = &[
    "<script>window.__laika_xss=1</script>",
    "<img src=x onerror=\"window.__laika_xss=1\">",
    "\"><img src=x onerror=window.__laika_xss=1>",
    "'><svg onload=window.__laika_xss=1>",
    "<iframe src=\"javascript:window.__laika_xss=1\"></iframe>",
    "<iframe srcdoc=\"<script>parent.__laika_xss=1</script>\"></iframe>",
    "<a href=\"javascript:window.__laika_xss=1\">x</a>",
    "<details open ontoggle=window.__laika_xss=1>",
    "<style>@import 'https://evil.example/x.css';</style>",
    "javascript:window.__laika_xss=1",
    "&lt;script&gt;window.__laika_xss=1&lt;/script&gt;",
    "</code></pre><script>window.__laika_xss=1</script>",
    "rust\" onmouseover=\"window.__laika_xss=1",
    "{{constructor.constructor('window.__laika_xss=1')()}}",
];

/// A document with `payload` in every string field the format has.
fn payload_value(payload: &str) -> Value {
    let t = |s: &str| json!({"type": "text", "text": s});
    json!({"type": "doc", "children": [
        {"type": "heading", "level": 1, "children": [t(payload)]},
        {"type": "paragraph", "children": [
            t(payload),
            {"type": "link", "href": payload, "children": [t(payload)]},
            {"type": "link", "href": format!("https://ok.example/?q={}", payload.len()), "children": [t(payload)]}
        ]},
        {"type": "list", "ordered": true, "items": [{"type": "list_item", "children": [
            {"type": "paragraph", "children": [t(payload)]}
        ]}]},
        {"type": "blockquote", "children": [{"type": "paragraph", "children": [t(payload)]}]},
        {"type": "code_block", "language": payload, "text": payload},
        {"type": "table", "rows": [
            {"type": "table_row", "cells": [{"type": "table_cell", "header": true, "children": [t(payload)]}]},
            {"type": "table_row", "cells": [{"type": "table_cell", "header": false, "children": [
                t(payload), {"type": "link", "href": payload, "children": [t(payload)]}
            ]}]}
        ]}
    ]})
}

/// The same, built in code (so the sanitiser never saw the language or the hrefs).
fn payload_doc(payload: &str) -> Doc {
    Doc {
        children: vec![
            Block::Heading { level: 1, children: vec![text(payload)] },
            paragraph(vec![text(payload), link(payload, payload)]),
            Block::CodeBlock { language: Some(payload.into()), text: payload.into() },
            Block::Table {
                rows: vec![TableRow {
                    cells: vec![TableCell { header: false, children: vec![text(payload), link(payload, payload)] }],
                }],
            },
        ],
    }
}

/// The control for the canary checks: markup that is parsed does set the canary, so an unset
/// canary means the payloads stayed text (and not that they could never have run here).
#[wasm_bindgen_test]
async fn the_canary_fires_when_markup_is_parsed() {
    clear_canary();
    let document = document();
    let probe = document.create_element("div").unwrap();
    // The one place `innerHTML` is used: to show what the renderer must never do.
    probe.set_inner_html(XSS[1]);
    document.body().unwrap().append_child(&probe).unwrap();
    gloo_timers::future::TimeoutFuture::new(300).await;
    let window = web_sys::window().unwrap();
    let value = js_sys::Reflect::get(&window, &JsValue::from_str(CANARY)).unwrap();
    assert_eq!(value.as_f64(), Some(1.0), "the payload ran");
    probe.remove();
    clear_canary();
}

#[wasm_bindgen_test]
async fn xss_strings_in_every_field_stay_inert_text() {
    clear_canary();
    let document = document();
    let body = document.body().unwrap();
    let mut rendered = Vec::new();
    for payload in XSS {
        let (from_value, _) = render_value(&document, &payload_value(payload)).unwrap();
        let from_doc = render_doc(&document, &payload_doc(payload)).unwrap();
        for root in [from_value, from_doc] {
            // Attached, so that anything that did become markup would load and run.
            body.append_child(&root).unwrap();
            assert_safe(&root);
            // The payload is there, as text.
            assert!(root.text_content().unwrap().contains(payload), "{payload:?}");
            // Only the allowed link (to ok.example) became a link.
            for element in elements(&root) {
                if element.local_name() == "a" {
                    assert!(element.get_attribute("href").unwrap().starts_with("https://ok.example/"), "{payload:?}");
                }
                if element.local_name() == "code" {
                    assert!(element.get_attribute("class").is_none(), "{payload:?} became a class");
                }
            }
            rendered.push(root);
        }
    }
    assert_canary_unset().await;
    for root in rendered {
        root.remove();
    }
}

#[wasm_bindgen_test]
async fn markdown_renders_and_its_raw_html_never_does() {
    clear_canary();
    let document = document();
    let markdown = "# Title\n\nSome **bold** and `code`, a [link](https://example.com/) and \
        a [bad one](javascript:window.__laika_xss=1).\n\nline one  \nline two\n\n- one\n- two\n\n\
        <script>window.__laika_xss=1</script>\n\n\
        <div onclick=\"window.__laika_xss=1\">block <b>html</b></div>\n\n\
        Inline <img src=x onerror=\"window.__laika_xss=1\"> and <iframe src=\"javascript:window.__laika_xss=1\"></iframe> \
        and <a href=\"javascript:window.__laika_xss=1\">raw link</a> and <svg onload=\"window.__laika_xss=1\"></svg>.\n\n\
        ![alt text](javascript:window.__laika_xss=1)\n\n\
        <style>body{display:none}</style>\n\n\
        | a | b |\n|---|---|\n| <b>1</b> | [x](data:text/html,hi) |\n\n\
        ```html\n<script>window.__laika_xss=1</script>\n```\n";
    let root = render_markdown(&document, markdown).unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    assert_safe(&root);
    for tag in ["script", "img", "iframe", "svg", "style", "b", "strong", "em"] {
        assert!(root.query_selector(tag).unwrap().is_none(), "a raw <{tag}> was rendered");
    }
    assert_eq!(root.query_selector("h1").unwrap().unwrap().text_content().unwrap(), "Title");
    let links = root.query_selector_all("a").unwrap();
    assert_eq!(links.length(), 1);
    let only: Element = links.item(0).unwrap().unchecked_into();
    assert_eq!(only.get_attribute("href").as_deref(), Some("https://example.com/"));
    assert_eq!(root.query_selector_all("ul > li").unwrap().length(), 2);
    assert!(shape(&root).contains("<p>line one<br>line two</p>"), "{}", shape(&root));
    assert!(root.query_selector("table th").unwrap().is_some());
    // The fenced block is code, shown as text.
    let code = root.query_selector("pre > code.language-html").unwrap().expect("the fenced code");
    assert_eq!(code.text_content().unwrap(), "<script>window.__laika_xss=1</script>");
    assert_canary_unset().await;
    root.remove();
}
