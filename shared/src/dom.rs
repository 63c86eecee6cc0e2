//! The small DOM interface the observation heuristics read pages through.
//!
//! One heuristics codebase serves two DOMs: the live page (a web-sys implementation in the
//! extension) and an HTML string (the scraper implementation in [`crate::html`], for the CLI,
//! tests and benchmarks). The trait asks only for what both can answer cheaply: structure,
//! tag names, attributes, text, and whether the page hides a node.
//!
//! The trait never exposes form field values: the heuristics cannot leak what they cannot read.

/// What kind of node a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeType {
    Element,
    Text,
    /// Comments, doctypes, processing instructions: never observed.
    Other,
}

/// Read access to a document.
pub trait Dom {
    type Node: Clone;

    /// The `<html>` element (or the nearest thing the document has).
    fn document_element(&self) -> Option<Self::Node>;
    fn children(&self, node: &Self::Node) -> Vec<Self::Node>;
    fn parent(&self, node: &Self::Node) -> Option<Self::Node>;
    fn node_type(&self, node: &Self::Node) -> NodeType;
    /// Lower-case local name of an element; empty for other nodes.
    fn tag_name(&self, node: &Self::Node) -> String;
    /// An attribute of an element. Implementations never return the live `value` of form
    /// fields, only the markup's attribute (and the heuristics never ask for `value` anyway).
    fn attribute(&self, node: &Self::Node, name: &str) -> Option<String>;
    /// The data of a text node; empty for other nodes.
    fn text(&self, node: &Self::Node) -> String;
    /// Whether the page hides the element by style (`display: none`, `visibility: hidden`).
    /// A live DOM answers from computed style; a parsed document from inline styles only.
    fn is_hidden_by_style(&self, node: &Self::Node) -> bool;
    /// Whether the page's style gives the element a pointer cursor of its own (`cursor:
    /// pointer` where its parent has none): how a page marks a control it wires up in script
    /// (a clickable `<span>`, a tree node, an icon). A live DOM answers from computed style; a
    /// parsed document cannot tell, and says no.
    fn has_own_pointer_cursor(&self, _node: &Self::Node) -> bool {
        false
    }
    /// A handle `laika-N` for the element, the same for the same element every time it is
    /// asked for (on a live page: across observations).
    fn handle(&self, node: &Self::Node) -> String;
    /// Finds an element by a handle given out earlier.
    fn find_handle(&self, handle: &str) -> Option<Self::Node>;
}
