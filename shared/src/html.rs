//! The [`Dom`] over an HTML string, parsed with scraper (html5ever): the native side's way to
//! observe a page (CLI, tests, benchmarks). Compiled only with the `html` feature, so the
//! extension's WASM never carries an HTML parser.

use crate::dom::{Dom, NodeType};
use crate::observation::Observation;
use crate::observe::{ObserveOptions, observe};
use crate::stylesheet::SheetVisibility;
use ego_tree::NodeId;
use html5ever::driver::{self, ParseOpts};
use html5ever::tendril::TendrilSink;
use html5ever::tree_builder::TreeBuilderOpts;
use scraper::{Html, HtmlTreeSink, Node};
use std::cell::RefCell;
use std::collections::HashMap;

/// A parsed document with handles assigned in the order the heuristics ask for them.
pub struct HtmlDom {
    html: Html,
    /// What the page's own `<style>` sheets hide (a browser would know from computed style).
    sheets: SheetVisibility,
    handles: RefCell<Handles>,
}

#[derive(Default)]
struct Handles {
    by_node: HashMap<NodeId, usize>,
    nodes: Vec<NodeId>,
}

impl HtmlDom {
    /// Parses HTML the way a browser does (html5ever); never fails, whatever the input.
    ///
    /// Scripting is off: a page read from a file runs no script, so `<noscript>` content is
    /// parsed as markup (the reader shows it only when the page has nothing else to show).
    pub fn parse(html: &str) -> HtmlDom {
        let options = ParseOpts {
            tree_builder: TreeBuilderOpts { scripting_enabled: false, ..Default::default() },
            ..Default::default()
        };
        let html = driver::parse_document(HtmlTreeSink::new(Html::new_document()), options).one(html);
        let sheets = SheetVisibility::compute(&html);
        HtmlDom { html, sheets, handles: RefCell::new(Handles::default()) }
    }

    fn node(&self, id: NodeId) -> Option<ego_tree::NodeRef<'_, Node>> {
        self.html.tree.get(id)
    }
}

impl Dom for HtmlDom {
    type Node = NodeId;

    fn document_element(&self) -> Option<NodeId> {
        Some(self.html.root_element().id())
    }

    fn children(&self, node: &NodeId) -> Vec<NodeId> {
        self.node(*node).map(|n| n.children().map(|c| c.id()).collect()).unwrap_or_default()
    }

    fn parent(&self, node: &NodeId) -> Option<NodeId> {
        let parent = self.node(*node)?.parent()?;
        parent.value().is_element().then(|| parent.id())
    }

    fn node_type(&self, node: &NodeId) -> NodeType {
        match self.node(*node).map(|n| n.value()) {
            Some(Node::Element(_)) => NodeType::Element,
            Some(Node::Text(_)) => NodeType::Text,
            _ => NodeType::Other,
        }
    }

    fn tag_name(&self, node: &NodeId) -> String {
        match self.node(*node).map(|n| n.value()) {
            Some(Node::Element(element)) => element.name().to_ascii_lowercase(),
            _ => String::new(),
        }
    }

    fn attribute(&self, node: &NodeId, name: &str) -> Option<String> {
        match self.node(*node).map(|n| n.value()) {
            Some(Node::Element(element)) => element.attr(name).map(str::to_string),
            _ => None,
        }
    }

    fn text(&self, node: &NodeId) -> String {
        match self.node(*node).map(|n| n.value()) {
            Some(Node::Text(text)) => text.to_string(),
            _ => String::new(),
        }
    }

    fn is_hidden_by_style(&self, node: &NodeId) -> bool {
        let Some(Node::Element(element)) = self.node(*node).map(|n| n.value()) else { return false };
        let style: String = element
            .attr("style")
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        if style.contains("display:none") || style.contains("visibility:hidden") {
            return true;
        }
        self.sheets.hides(*node, style.contains("display:"), element.attr("class").unwrap_or(""))
    }

    fn handle(&self, node: &NodeId) -> String {
        let mut handles = self.handles.borrow_mut();
        let next = handles.nodes.len() + 1;
        let number = *handles.by_node.entry(*node).or_insert(next);
        if number == next {
            handles.nodes.push(*node);
        }
        format!("laika-{number}")
    }

    fn find_handle(&self, handle: &str) -> Option<NodeId> {
        let number: usize = handle.strip_prefix("laika-")?.parse().ok()?;
        self.handles.borrow().nodes.get(number.checked_sub(1)?).copied()
    }
}

/// Observes an HTML string as the content script observes a live page.
pub fn observe_html(html: &str, url: &str, options: &ObserveOptions) -> Observation {
    observe(&HtmlDom::parse(html), url, options)
}

/// The main text Laika sends for summarisation, with no budget cut: the benchmark's input.
pub fn extract_main_text(html: &str, url: &str) -> String {
    let options = ObserveOptions::unbounded();
    crate::observe::main_text(&observe_html(html, url, &options))
}
