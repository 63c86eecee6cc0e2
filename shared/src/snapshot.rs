//! A page as plain data: the [`Dom`] the extension observes through when a page forbids WASM in
//! its content script.
//!
//! Chromium refuses to compile WASM in a content script on pages whose CSP lacks
//! `'wasm-unsafe-eval'` (crbug 1385796). On such pages the content script's small loader copies
//! the page into a [`Snapshot`] (structure, tag names, attributes, text, hidden-by-style, and the
//! handle number it gave each element) and sends it to the extension's own context, where the
//! same heuristics read it through [`SnapshotDom`]. Tool calls still name elements by handle; the
//! loader keeps the numbers and finds the live element again.
//!
//! The wire form is compact because a long page has tens of thousands of nodes:
//! `{"url": "...", "nodes": [{"p": parent, "t": "div", "a": [["class", "x"]], "h": 1, "k": 7},
//! {"p": 0, "x": "text"}, ...]}`: nodes in document order, each after its parent, `p` the
//! parent's index (absent for the root, which is node 0), `t` an element's tag, `x` a text
//! node's data, `a` attributes, `h` hidden by style, `k` the element's handle number
//! (`laika-{k}`). Like every [`Dom`], it holds no form field values: the loader never copies
//! `value` attributes or properties.

use crate::dom::{Dom, NodeType};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The most nodes a snapshot may hold; a page past this is cut (the reader sees its start).
pub const MAX_SNAPSHOT_NODES: usize = 400_000;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Snapshot {
    #[serde(default)]
    pub url: String,
    pub nodes: Vec<SnapshotNode>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SnapshotNode {
    /// The parent's index; `None` only for the root.
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// The tag name of an element.
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// The data of a text node.
    #[serde(rename = "x", default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(rename = "a", default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<(String, String)>,
    #[serde(rename = "h", default, skip_serializing_if = "is_false", with = "flag")]
    pub hidden: bool,
    /// The element's handle number.
    #[serde(rename = "k", default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<u64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `h` is written as `1` (short) and read as `1`/`0` or `true`/`false`.
mod flag {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &bool, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(u8::from(*value))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Flag {
            Bool(bool),
            Number(u8),
        }
        Ok(match Flag::deserialize(deserializer)? {
            Flag::Bool(b) => b,
            Flag::Number(n) => n != 0,
        })
    }
}

/// Why a snapshot cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error("SNAPSHOT_EMPTY: the snapshot has no nodes")]
    Empty,
    #[error("SNAPSHOT_TOO_LARGE: {0} nodes (at most {MAX_SNAPSHOT_NODES})")]
    TooLarge(usize),
    #[error("SNAPSHOT_BAD_TREE: node {0} does not come after its parent")]
    BadTree(usize),
    #[error("SNAPSHOT_BAD_ROOT: node 0 must be an element without a parent")]
    BadRoot,
}

impl SnapshotError {
    pub fn code(&self) -> &'static str {
        match self {
            SnapshotError::Empty => "SNAPSHOT_EMPTY",
            SnapshotError::TooLarge(_) => "SNAPSHOT_TOO_LARGE",
            SnapshotError::BadTree(_) => "SNAPSHOT_BAD_TREE",
            SnapshotError::BadRoot => "SNAPSHOT_BAD_ROOT",
        }
    }
}

/// A checked snapshot with its child lists built.
pub struct SnapshotDom {
    snapshot: Snapshot,
    children: Vec<Vec<usize>>,
    by_handle: HashMap<u64, usize>,
}

impl SnapshotDom {
    pub fn new(snapshot: Snapshot) -> Result<SnapshotDom, SnapshotError> {
        let count = snapshot.nodes.len();
        if count == 0 {
            return Err(SnapshotError::Empty);
        }
        if count > MAX_SNAPSHOT_NODES {
            return Err(SnapshotError::TooLarge(count));
        }
        let root = &snapshot.nodes[0];
        if root.parent.is_some() || root.tag.is_none() {
            return Err(SnapshotError::BadRoot);
        }
        let mut children = vec![Vec::new(); count];
        let mut by_handle = HashMap::new();
        for (index, node) in snapshot.nodes.iter().enumerate() {
            if index > 0 {
                // Parents come first, so the tree has no cycles and every node hangs from node 0.
                match node.parent {
                    Some(parent) if parent < index && snapshot.nodes[parent].tag.is_some() => {
                        children[parent].push(index)
                    }
                    _ => return Err(SnapshotError::BadTree(index)),
                }
            }
            if let (Some(handle), Some(_)) = (node.handle, &node.tag) {
                by_handle.entry(handle).or_insert(index);
            }
        }
        Ok(SnapshotDom { snapshot, children, by_handle })
    }

    pub fn url(&self) -> &str {
        &self.snapshot.url
    }

    fn node(&self, index: usize) -> &SnapshotNode {
        &self.snapshot.nodes[index]
    }
}

impl Dom for SnapshotDom {
    type Node = usize;

    fn document_element(&self) -> Option<usize> {
        Some(0)
    }

    fn children(&self, node: &usize) -> Vec<usize> {
        self.children.get(*node).cloned().unwrap_or_default()
    }

    fn parent(&self, node: &usize) -> Option<usize> {
        self.snapshot.nodes.get(*node)?.parent
    }

    fn node_type(&self, node: &usize) -> NodeType {
        match self.snapshot.nodes.get(*node) {
            Some(n) if n.tag.is_some() => NodeType::Element,
            Some(n) if n.text.is_some() => NodeType::Text,
            _ => NodeType::Other,
        }
    }

    fn tag_name(&self, node: &usize) -> String {
        self.snapshot.nodes.get(*node).and_then(|n| n.tag.as_deref()).unwrap_or_default().to_ascii_lowercase()
    }

    fn attribute(&self, node: &usize, name: &str) -> Option<String> {
        let node = self.snapshot.nodes.get(*node)?;
        node.tag.as_ref()?;
        node.attributes.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.clone())
    }

    fn text(&self, node: &usize) -> String {
        self.snapshot.nodes.get(*node).and_then(|n| n.text.clone()).unwrap_or_default()
    }

    fn is_hidden_by_style(&self, node: &usize) -> bool {
        self.snapshot.nodes.get(*node).is_some_and(|n| n.hidden)
    }

    fn handle(&self, node: &usize) -> String {
        match self.node(*node).handle {
            Some(handle) if self.node(*node).tag.is_some() => format!("laika-{handle}"),
            _ => String::new(),
        }
    }

    fn find_handle(&self, handle: &str) -> Option<usize> {
        let number: u64 = handle.strip_prefix("laika-")?.parse().ok()?;
        self.by_handle.get(&number).copied()
    }
}

/// Copies any [`Dom`] into a snapshot, the way the content script's loader copies the live page
/// (handles numbered in document order from 1). Used to check that a snapshot reads the same as
/// the page it came from.
pub fn snapshot_of<D: Dom>(dom: &D, url: &str) -> Snapshot {
    let mut nodes = Vec::new();
    let Some(root) = dom.document_element() else { return Snapshot { url: url.into(), nodes } };
    let mut stack = vec![(root, None::<usize>)];
    while let Some((node, parent)) = stack.pop() {
        if nodes.len() >= MAX_SNAPSHOT_NODES {
            break;
        }
        let index = nodes.len();
        match dom.node_type(&node) {
            NodeType::Element => {
                let tag = dom.tag_name(&node);
                let handle = dom.handle(&node).strip_prefix("laika-").and_then(|n| n.parse().ok());
                let mut attributes: Vec<(String, String)> = ATTRIBUTES_READ
                    .iter()
                    .filter_map(|name| dom.attribute(&node, name).map(|value| (name.to_string(), value)))
                    .collect();
                // A button input's label is its markup `value`; no other value is ever copied.
                if is_button_input(&tag, dom.attribute(&node, "type").as_deref())
                    && let Some(value) = dom.attribute(&node, "value")
                {
                    attributes.push(("value".into(), value));
                }
                nodes.push(SnapshotNode {
                    parent,
                    tag: Some(tag),
                    text: None,
                    attributes,
                    hidden: dom.is_hidden_by_style(&node),
                    handle,
                });
                let children = dom.children(&node);
                stack.extend(children.into_iter().rev().map(|child| (child, Some(index))));
            }
            NodeType::Text => nodes.push(SnapshotNode { parent, text: Some(dom.text(&node)), ..Default::default() }),
            NodeType::Other => {}
        }
    }
    Snapshot { url: url.into(), nodes }
}

/// Whether an element is an `<input>` whose `value` attribute is its visible label.
pub fn is_button_input(tag: &str, input_type: Option<&str>) -> bool {
    tag.eq_ignore_ascii_case("input")
        && input_type.is_some_and(|t| ["button", "submit", "reset"].iter().any(|b| t.trim().eq_ignore_ascii_case(b)))
}

/// Attributes [`snapshot_of`] copies: a generic [`Dom`] cannot list an element's attributes, so
/// this names every one the reader asks for. (The live loader copies all but event handlers and
/// `value`, which it keeps only on button inputs, as here.)
const ATTRIBUTES_READ: &[&str] = &[
    "id",
    "class",
    "role",
    "style",
    "hidden",
    "href",
    "src",
    "alt",
    "title",
    "type",
    "name",
    "placeholder",
    "autocomplete",
    "inputmode",
    "aria-label",
    "aria-labelledby",
    "aria-hidden",
    "aria-modal",
    "aria-disabled",
    "aria-level",
    "aria-expanded",
    "aria-haspopup",
    "disabled",
    "readonly",
    "for",
    "content",
    "property",
    "itemprop",
    "itemtype",
    "itemscope",
    "datetime",
    "download",
    "lang",
    "open",
    "colspan",
    "data-testid",
    "data-id",
    "data-depth",
    "data-level",
    "data-indent",
    "data-score",
    "data-author",
    "indent",
    "width",
    "contenteditable",
    "tabindex",
    "target",
    "rel",
    "label",
    "http-equiv",
    "charset",
    "dir",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_with_a_node_before_its_parent_is_refused() {
        let bad = Snapshot {
            url: String::new(),
            nodes: vec![
                SnapshotNode { tag: Some("html".into()), ..Default::default() },
                SnapshotNode { parent: Some(2), tag: Some("body".into()), ..Default::default() },
                SnapshotNode { parent: Some(0), tag: Some("head".into()), ..Default::default() },
            ],
        };
        assert_eq!(SnapshotDom::new(bad).err(), Some(SnapshotError::BadTree(1)));
        assert_eq!(SnapshotDom::new(Snapshot::default()).err(), Some(SnapshotError::Empty));
        let text_root =
            Snapshot { url: String::new(), nodes: vec![SnapshotNode { text: Some("x".into()), ..Default::default() }] };
        assert_eq!(SnapshotDom::new(text_root).err(), Some(SnapshotError::BadRoot));
    }

    #[test]
    fn the_wire_form_is_compact_and_reads_back() {
        let json = r#"{"url":"https://a.example/","nodes":[{"t":"html","k":1},{"p":0,"t":"body","a":[["class","x"]],"h":1,"k":2},{"p":1,"x":"hi"}]}"#;
        let snapshot: Snapshot = serde_json::from_str(json).unwrap();
        let dom = SnapshotDom::new(snapshot.clone()).unwrap();
        assert_eq!(dom.children(&0), vec![1]);
        assert!(dom.is_hidden_by_style(&1));
        assert_eq!(dom.attribute(&1, "CLASS").as_deref(), Some("x"));
        assert_eq!(dom.handle(&1), "laika-2");
        assert_eq!(dom.find_handle("laika-2"), Some(1));
        assert_eq!(dom.text(&2), "hi");
        assert_eq!(serde_json::to_string(&snapshot).unwrap(), json);
    }
}
