//! The [`Dom`] of the live page, over web-sys: the content script observes through it with the
//! same heuristics the CLI and the benchmarks run natively.
//!
//! Handles are kept in the content script's own memory (a `WeakMap` from element to number and a
//! list back), never written into the page: a page script could move a `data-` attribute to
//! another element and make an approved click land somewhere else. The numbering lives as long
//! as the content script, so the same element keeps its handle across observations.

use laika_shared::dom::{Dom, NodeType};
use std::cell::RefCell;
use wasm_bindgen::JsValue;
use web_sys::{Document, Element, Node, Window};

struct Handles {
    by_element: js_sys::WeakMap,
    elements: Vec<Element>,
}

thread_local! {
    static HANDLES: RefCell<Handles> =
        RefCell::new(Handles { by_element: js_sys::WeakMap::new(), elements: Vec::new() });
}

/// The live document of the page the content script runs in.
pub struct LiveDom {
    window: Window,
    document: Document,
}

impl LiveDom {
    pub fn new(window: Window) -> Option<LiveDom> {
        let document = window.document()?;
        Some(LiveDom { window, document })
    }

    pub fn document(&self) -> &Document {
        &self.document
    }

    /// The page's URL, as the observation reports it (redacted by the reader).
    pub fn url(&self) -> String {
        self.window.location().href().unwrap_or_default()
    }

    /// The element behind a handle given out earlier, if it is still in the page.
    pub fn element(&self, handle: &str) -> Option<Element> {
        let node = self.find_handle(handle)?;
        let element = as_element(&node)?.clone();
        element.is_connected().then_some(element)
    }
}

/// The node as an element. Checked by node type, not `instanceof`: nodes of another realm (a
/// frame's document) are elements too, but not instances of this realm's `Element`.
fn as_element(node: &Node) -> Option<&Element> {
    (node.node_type() == Node::ELEMENT_NODE).then(|| wasm_bindgen::JsCast::unchecked_ref::<Element>(node))
}

impl Dom for LiveDom {
    type Node = Node;

    fn document_element(&self) -> Option<Node> {
        self.document.document_element().map(Node::from)
    }

    fn children(&self, node: &Node) -> Vec<Node> {
        // An open shadow root's content is what the user sees in place of the light children.
        let parent: Node = match as_element(node).and_then(Element::shadow_root) {
            Some(shadow) => shadow.into(),
            None => node.clone(),
        };
        let list = parent.child_nodes();
        (0..list.length()).filter_map(|i| list.item(i)).collect()
    }

    fn parent(&self, node: &Node) -> Option<Node> {
        node.parent_element().map(Node::from)
    }

    fn node_type(&self, node: &Node) -> NodeType {
        match node.node_type() {
            Node::ELEMENT_NODE => NodeType::Element,
            Node::TEXT_NODE => NodeType::Text,
            _ => NodeType::Other,
        }
    }

    fn tag_name(&self, node: &Node) -> String {
        as_element(node).map(|e| e.local_name().to_ascii_lowercase()).unwrap_or_default()
    }

    fn attribute(&self, node: &Node, name: &str) -> Option<String> {
        // The markup attribute only: a field's live value is a property, never read here.
        as_element(node)?.get_attribute(name)
    }

    fn text(&self, node: &Node) -> String {
        if node.node_type() == Node::TEXT_NODE { node.node_value().unwrap_or_default() } else { String::new() }
    }

    fn is_hidden_by_style(&self, node: &Node) -> bool {
        let Some(element) = as_element(node) else { return false };
        let Ok(Some(style)) = self.window.get_computed_style(element) else { return false };
        let display = style.get_property_value("display").unwrap_or_default();
        let visibility = style.get_property_value("visibility").unwrap_or_default();
        display == "none" || visibility == "hidden" || visibility == "collapse"
    }

    fn has_own_pointer_cursor(&self, node: &Node) -> bool {
        let cursor = |node: &Node| {
            as_element(node)
                .and_then(|e| self.window.get_computed_style(e).ok().flatten())
                .and_then(|s| s.get_property_value("cursor").ok())
                .unwrap_or_default()
        };
        cursor(node) == "pointer" && node.parent_node().is_none_or(|parent| cursor(&parent) != "pointer")
    }

    fn handle(&self, node: &Node) -> String {
        HANDLES.with(|handles| {
            let mut handles = handles.borrow_mut();
            let known = handles.by_element.get(node);
            if let Some(number) = known.as_f64() {
                return format!("laika-{number}");
            }
            let Some(element) = as_element(node) else { return String::new() };
            handles.elements.push(element.clone());
            let number = handles.elements.len();
            handles.by_element.set(node, &JsValue::from_f64(number as f64));
            format!("laika-{number}")
        })
    }

    fn find_handle(&self, handle: &str) -> Option<Node> {
        let number: usize = handle.strip_prefix("laika-")?.parse().ok()?;
        HANDLES.with(|handles| handles.borrow().elements.get(number.checked_sub(1)?).cloned().map(Node::from))
    }
}

/// `browser.observe_dom` on the live page. Takes the tool's arguments as JSON (checked against
/// the catalogue, budgets and cursor included) and returns the chunked observation
/// `{observation, cursor, done, total_chars}` as JSON; errors carry their stable code. The same
/// reading the content script answers `observe` messages with ([`crate::content::observe`]).
#[wasm_bindgen::prelude::wasm_bindgen(js_name = observeDom)]
pub fn observe_dom(arguments_json: &str) -> Result<String, JsValue> {
    let arguments: serde_json::Map<String, serde_json::Value> = serde_json::from_str(arguments_json)
        .map_err(|e| JsValue::from_str(&format!("TOOL_ARGS_INVALID: arguments are not a JSON object: {e}")))?;
    let chunk = crate::content::observe(&arguments).map_err(|e| JsValue::from_str(&e.to_string()))?;
    Ok(chunk.to_string())
}
