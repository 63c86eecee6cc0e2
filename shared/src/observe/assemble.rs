//! The last stage: the [`Page`] reading and the side stages (titles, elements, items,
//! comments, signals) assembled into one `Observation`, its text cut at the cursor.

use super::arena::{Arena, collapse_whitespace};
use super::clutter::{closing_pitches, first_block};
use super::elements::elements;
use super::items::{comments, items, top_discussions};
use super::primary::Page;
use super::redact::redact_url;
use super::signals::signals;
use super::text::{cut_chunk, truncate_chars};
use super::title::{document_title, outline, page_titles};
use super::words::*;
use super::{ChunkedObservation, ObserveOptions, same_title};
use crate::dom::Dom;
use crate::observation::{Observation, Primary};

impl Page {
    pub(super) fn observation<D: Dom>(
        &self,
        dom: &D,
        arena: &Arena<D::Node>,
        url: &str,
        options: &ObserveOptions,
    ) -> ChunkedObservation {
        let title = document_title(dom, arena);
        // The heading that repeats one of the page's titles is the title, which the observation
        // carries already; leaving it out of the text keeps it from being read (and counted)
        // twice. With no such <h1>, the content's first line is the title when it repeats one
        // (a headline styled as `p.titulo` or `div.headline`).
        let mut dropped = self.dropped.clone();
        let first_heading = self
            .content_roots
            .iter()
            .flat_map(|&root| arena.subtree(root))
            .find(|&i| arena.nodes[i].tag == "h1" && !dropped[i] && !arena.nodes[i].skip);
        let titles = page_titles(dom, arena, &title);
        if let Some(heading) = first_heading
            && titles.iter().any(|t| same_title(&arena.plain_text(heading), t))
        {
            dropped[heading] = true;
        } else if let Some(first) = first_block(arena, &self.content_roots, &dropped)
            && !self.content_roots.contains(&first)
        {
            // A short line, and not a mere part of the title (a kicker, the author's name).
            let text = collapse_whitespace(&arena.plain_text(first));
            let count = text.chars().count();
            if count <= REPEATED_TITLE_MAX_CHARS
                && titles.iter().any(|t| same_title(&text, t) && count * 2 >= t.chars().count())
            {
                dropped[first] = true;
            }
        }
        for block in closing_pitches(arena, &self.content_roots, &dropped) {
            dropped[block] = true;
        }
        let full_text = self.write_leaving_out(arena, &dropped);
        let (text, cursor, done, total_chars) =
            cut_chunk(&full_text, options.cursor, options.max_chars, options.max_blocks);

        let primary_node = &arena.nodes[self.primary];
        let primary_text = arena.plain_text(self.primary);
        let primary = Primary {
            text: truncate_chars(&primary_text, options.max_primary_chars),
            tag: primary_node.tag.clone(),
            role: primary_node.role.clone(),
            handle_id: Some(dom.handle(&primary_node.dom)),
        };

        let mut observation = Observation {
            doc_type: Some("web.observation.summary.v1".into()),
            url: redact_url(url, url).unwrap_or_default(),
            title,
            text,
            primary: Some(primary),
            outline: outline(arena, options),
            elements: elements(dom, arena, &self.chrome, self.primary, url, options),
            signals: signals(arena, self.primary),
            ..Default::default()
        };
        observation.items = items(dom, arena, url, options);
        observation.comments = comments(dom, arena, options);
        observation.top_discussions = top_discussions(&observation.items);
        ChunkedObservation { observation, cursor, done, total_chars }
    }
}
