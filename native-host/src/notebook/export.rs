//! A note in each of `artifact.share`'s formats: Markdown, plain text, JSON, CSV and PDF.
//!
//! Every format carries the note's sources: Markdown and text end with a "Sources" list (each
//! page with its cited sentences, numbered as the note's `[n]` markers), JSON holds them as
//! fields, CSV as columns, PDF as the text's last section.

use super::Note;
use laika_shared::render::{Block, Doc, Inline};
use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Tag, TagEnd};

/// A render document as CommonMark, through pulldown-cmark-to-cmark (escaping included).
pub fn doc_to_markdown(doc: &Doc) -> String {
    let mut events = vec![];
    for block in &doc.children {
        block_events(block, &mut events);
    }
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = pulldown_cmark_to_cmark::cmark(events.into_iter(), &mut out);
    out
}

fn block_events<'a>(block: &'a Block, out: &mut Vec<Event<'a>>) {
    match block {
        Block::Heading { level, children } => {
            let level = match level {
                1 => HeadingLevel::H1,
                2 => HeadingLevel::H2,
                3 => HeadingLevel::H3,
                4 => HeadingLevel::H4,
                5 => HeadingLevel::H5,
                _ => HeadingLevel::H6,
            };
            out.push(Event::Start(Tag::Heading { level, id: None, classes: vec![], attrs: vec![] }));
            inline_events(children, out);
            out.push(Event::End(TagEnd::Heading(level)));
        }
        Block::Paragraph { children } => {
            out.push(Event::Start(Tag::Paragraph));
            inline_events(children, out);
            out.push(Event::End(TagEnd::Paragraph));
        }
        Block::List { ordered, items } => {
            out.push(Event::Start(Tag::List(ordered.then_some(1))));
            for item in items {
                out.push(Event::Start(Tag::Item));
                for child in &item.children {
                    // A list item's single paragraph is written tight, as a user wrote it.
                    match child {
                        Block::Paragraph { children } if item.children.len() == 1 => inline_events(children, out),
                        other => block_events(other, out),
                    }
                }
                out.push(Event::End(TagEnd::Item));
            }
            out.push(Event::End(TagEnd::List(*ordered)));
        }
        Block::Blockquote { children } => {
            out.push(Event::Start(Tag::BlockQuote(None)));
            for child in children {
                block_events(child, out);
            }
            out.push(Event::End(TagEnd::BlockQuote(None)));
        }
        Block::CodeBlock { language, text } => {
            let info = CowStr::from(language.clone().unwrap_or_default());
            out.push(Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))));
            out.push(Event::Text(CowStr::from(text.as_str())));
            out.push(Event::End(TagEnd::CodeBlock));
        }
        Block::Table { rows } => {
            let columns = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
            out.push(Event::Start(Tag::Table(vec![pulldown_cmark::Alignment::None; columns])));
            for (i, row) in rows.iter().enumerate() {
                let (start, end) =
                    if i == 0 { (Tag::TableHead, TagEnd::TableHead) } else { (Tag::TableRow, TagEnd::TableRow) };
                out.push(Event::Start(start));
                for column in 0..columns {
                    out.push(Event::Start(Tag::TableCell));
                    if let Some(cell) = row.cells.get(column) {
                        inline_events(&cell.children, out);
                    }
                    out.push(Event::End(TagEnd::TableCell));
                }
                out.push(Event::End(end));
            }
            out.push(Event::End(TagEnd::Table));
        }
    }
}

fn inline_events<'a>(inlines: &'a [Inline], out: &mut Vec<Event<'a>>) {
    for inline in inlines {
        match inline {
            Inline::Text(text) => out.push(Event::Text(CowStr::from(text.text.as_str()))),
            Inline::Link { href, children } => {
                out.push(Event::Start(Tag::Link {
                    link_type: pulldown_cmark::LinkType::Inline,
                    dest_url: CowStr::from(href.as_str()),
                    title: CowStr::from(""),
                    id: CowStr::from(""),
                }));
                for text in children {
                    out.push(Event::Text(CowStr::from(text.text.as_str())));
                }
                out.push(Event::End(TagEnd::Link));
            }
        }
    }
}

/// The note as Markdown: its title as a heading, its body, then its sources.
pub fn to_markdown(note: &Note) -> String {
    let mut out = format!("# {}\n\n{}\n", note.state.title.trim(), note.state.body_markdown.trim_end());
    if !note.sources.is_empty() {
        out.push_str("\n## Sources\n\n");
        // Numbered: a transform's `[n]` is its n-th source.
        for (n, source) in note.sources.iter().enumerate() {
            let title = source.title.as_deref().unwrap_or(&source.url);
            let title = title.replace(['[', ']'], "");
            match source.url.as_str() {
                "" => out.push_str(&format!("{}. {title} (a note)\n", n + 1)),
                url => out.push_str(&format!("{}. [{title}]({url})\n", n + 1)),
            }
            for citation in &source.citations {
                out.push_str(&format!("  - [{}] \"{}\"\n", citation.n, citation.quote));
            }
        }
    }
    out
}

/// The note as plain text: the Markdown read back as text, so no markup remains.
pub fn to_text(note: &Note) -> String {
    let doc = laika_shared::markdown::markdown_to_doc(&to_markdown(note));
    let mut out = String::new();
    for block in &doc.children {
        block_text(block, 0, &mut out);
    }
    out.trim_end().to_string() + "\n"
}

fn block_text(block: &Block, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    let inline = |children: &[Inline]| {
        children
            .iter()
            .map(|i| match i {
                Inline::Text(t) => t.text.clone(),
                Inline::Link { href, children } => {
                    let text: String = children.iter().map(|t| t.text.as_str()).collect();
                    if text == *href { text } else { format!("{text} <{href}>") }
                }
            })
            .collect::<String>()
    };
    match block {
        Block::Heading { children, .. } | Block::Paragraph { children } => {
            out.push_str(&format!("{indent}{}\n\n", inline(children)));
        }
        Block::List { ordered, items } => {
            for (n, item) in items.iter().enumerate() {
                let marker = if *ordered { format!("{}. ", n + 1) } else { "- ".into() };
                let mut inner = String::new();
                for child in &item.children {
                    block_text(child, 0, &mut inner);
                }
                let mut lines = inner.trim_end().lines();
                out.push_str(&format!("{indent}{marker}{}\n", lines.next().unwrap_or_default()));
                for line in lines.filter(|l| !l.trim().is_empty()) {
                    out.push_str(&format!("{indent}  {line}\n"));
                }
            }
            out.push('\n');
        }
        Block::Blockquote { children } => {
            for child in children {
                block_text(child, depth + 1, out);
            }
        }
        Block::CodeBlock { text, .. } => out.push_str(&format!("{text}\n\n")),
        Block::Table { rows } => {
            for row in rows {
                let cells: Vec<String> = row.cells.iter().map(|c| inline(&c.children)).collect();
                out.push_str(&format!("{indent}{}\n", cells.join("\t")));
            }
            out.push('\n');
        }
    }
}

/// The note as JSON (`laika.note.v1`): every field, its sources and citations included.
pub fn to_json(note: &Note) -> String {
    let mut value = serde_json::to_value(note).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("format".into(), "laika.note.v1".into());
    }
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

/// The note as CSV: a note holding a table (a comparison) exports that table, with a last
/// column naming the note; any other note is one row of `id,title,tags,path,sources,body`.
pub fn to_csv(note: &Note) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(vec![]);
    let doc = laika_shared::markdown::markdown_to_doc(&note.state.body_markdown);
    let table = doc.children.iter().find_map(|b| match b {
        Block::Table { rows } => Some(rows),
        _ => None,
    });
    match table {
        Some(rows) => {
            for row in rows {
                let cells = row.cells.iter().map(|c| {
                    c.children
                        .iter()
                        .map(|i| match i {
                            Inline::Text(t) => t.text.clone(),
                            Inline::Link { children, .. } => children.iter().map(|t| t.text.as_str()).collect(),
                        })
                        .collect::<String>()
                });
                writer.write_record(cells)?;
            }
        }
        None => {
            writer.write_record(["id", "title", "tags", "path", "sources", "body"])?;
            let sources: Vec<&str> = note.sources.iter().map(|s| s.url.as_str()).collect();
            writer.write_record([
                note.id.as_str(),
                note.state.title.as_str(),
                &note.state.tags.join("; "),
                note.state.path.as_deref().unwrap_or_default(),
                &sources.join(" "),
                note.state.body_markdown.as_str(),
            ])?;
        }
    }
    let bytes = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The page layout of [`to_pdf`]: A4 in points, Courier (every glyph 0.6 em wide, so a line's
/// width is its length in characters and wrapping needs no font metrics), one of the standard
/// 14 fonts every PDF reader has, so nothing is embedded.
mod page {
    pub const WIDTH: f32 = 595.0;
    pub const HEIGHT: f32 = 842.0;
    pub const MARGIN: f32 = 56.0;
    pub const BODY_SIZE: f32 = 10.0;
    pub const TITLE_SIZE: f32 = 14.0;
    pub const LEADING: f32 = 13.0;
    /// Courier's advance width, in ems.
    pub const GLYPH_EM: f32 = 0.6;
    pub fn columns() -> usize {
        ((WIDTH - 2.0 * MARGIN) / (BODY_SIZE * GLYPH_EM)) as usize
    }
    pub fn lines_per_page() -> usize {
        ((HEIGHT - 2.0 * MARGIN) / LEADING) as usize
    }
}

/// The note as a PDF: its plain text ([`to_text`]) set in Courier, wrapped and paginated, the
/// title in bold on the first page and in the document information.
pub fn to_pdf(note: &Note) -> Vec<u8> {
    use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};
    let text = to_text(note);
    // The first line of the text is the title (the Markdown's heading).
    let mut lines: Vec<(bool, String)> = vec![];
    for (i, paragraph) in text.lines().enumerate() {
        for line in
            wrap(paragraph, if i == 0 { (page::columns() as f32 * 10.0 / 14.0) as usize } else { page::columns() })
        {
            lines.push((i == 0, line));
        }
    }
    let pages: Vec<&[(bool, String)]> = lines.chunks(page::lines_per_page()).collect();
    let mut pdf = Pdf::new();
    let catalog = Ref::new(1);
    let tree = Ref::new(2);
    let regular = Ref::new(3);
    let bold = Ref::new(4);
    let info = Ref::new(5);
    let first_page = 6;
    pdf.catalog(catalog).pages(tree);
    let kids: Vec<Ref> = (0..pages.len()).map(|i| Ref::new(first_page + 2 * i as i32)).collect();
    pdf.pages(tree).kids(kids.iter().copied()).count(pages.len() as i32);
    for (id, base) in [(regular, b"Courier".as_slice()), (bold, b"Courier-Bold".as_slice())] {
        pdf.type1_font(id).base_font(Name(base)).encoding_predefined(Name(b"WinAnsiEncoding"));
    }
    pdf.document_info(info).title(TextStr(&note.state.title)).producer(TextStr("Laika"));
    for (i, lines) in pages.iter().enumerate() {
        let page_id = kids[i];
        let content_id = Ref::new(page_id.get() + 1);
        let mut page = pdf.page(page_id);
        page.media_box(Rect::new(0.0, 0.0, page::WIDTH, page::HEIGHT));
        page.parent(tree);
        page.contents(content_id);
        page.resources().fonts().pair(Name(b"F1"), regular).pair(Name(b"F2"), bold);
        page.finish();
        let mut content = Content::new();
        content.begin_text();
        content.set_leading(page::LEADING);
        content.next_line(page::MARGIN, page::HEIGHT - page::MARGIN);
        for (title, line) in lines.iter() {
            if *title {
                content.set_font(Name(b"F2"), page::TITLE_SIZE);
            } else {
                content.set_font(Name(b"F1"), page::BODY_SIZE);
            }
            content.show(Str(&win_ansi(line)));
            content.next_line_using_leading();
        }
        content.end_text();
        pdf.stream(content_id, &content.finish());
    }
    pdf.finish()
}

/// Words wrapped into lines of at most `columns` characters (a longer word is cut). An empty
/// paragraph stays one empty line.
fn wrap(paragraph: &str, columns: usize) -> Vec<String> {
    let indent: String = paragraph.chars().take_while(|c| *c == ' ').collect();
    let mut lines = vec![];
    let mut line = indent.clone();
    for word in paragraph.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > columns {
            if !line.trim().is_empty() {
                lines.push(std::mem::replace(&mut line, indent.clone()));
            }
            lines.push(word.drain(..columns).collect());
        }
        let word: String = word.into_iter().collect();
        let needed = line.chars().count() + usize::from(!line.trim().is_empty()) + word.chars().count();
        if needed > columns && !line.trim().is_empty() {
            lines.push(std::mem::replace(&mut line, indent.clone()));
        }
        if !line.trim().is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    lines.push(line);
    lines
}

/// Text in WinAnsiEncoding (the standard fonts' encoding): Latin-1 as it is, the typographic
/// punctuation Windows-1252 adds at 0x80–0x9F, and `?` for anything else (the standard 14
/// fonts have no other glyphs).
fn win_ansi(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{ff}' => c as u8,
            '€' => 0x80,
            '‚' => 0x82,
            '„' => 0x84,
            '…' => 0x85,
            '‘' => 0x91,
            '’' => 0x92,
            '“' => 0x93,
            '”' => 0x94,
            '•' => 0x95,
            '–' => 0x96,
            '—' => 0x97,
            '™' => 0x99,
            '\t' => b' ',
            _ => b'?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::{Citation, NoteSource, NoteState};

    fn note(body: &str) -> Note {
        Note {
            id: "note_3".into(),
            state: NoteState {
                title: "Obama on guns".into(),
                body_markdown: body.into(),
                tags: vec!["politics".into()],
                ..NoteState::default()
            },
            sources: vec![NoteSource {
                url: "https://www.bbc.co.uk/news/world-us-canada-33646542".into(),
                title: Some("BBC News".into()),
                citations: vec![Citation { n: 1, quote: "Mr Obama said it was \"distressing\".".into() }],
            }],
            redaction: "default".into(),
            version: 1,
            deleted: false,
            created_at: "2026-11-26T00:00:00.000Z".into(),
            updated_at: "2026-11-26T00:00:00.000Z".into(),
        }
    }

    #[test]
    fn a_document_becomes_markdown_that_reads_back_as_the_same_document() {
        let markdown = "## Points\n\n- Gun laws are his greatest frustration. [1]\n- Race relations improved. [2]\n\n\
                        | Year | Event |\n|---|---|\n| 2015 | Kenya visit |\n\nSee [the BBC](https://www.bbc.co.uk/).\n";
        let doc = laika_shared::markdown::markdown_to_doc(markdown);
        let written = doc_to_markdown(&doc);
        assert_eq!(laika_shared::markdown::markdown_to_doc(&written), doc, "{written}");
    }

    #[test]
    fn markdown_and_text_end_with_the_sources_and_their_citations() {
        let n = note("- Gun laws are his greatest frustration. [1]");
        let markdown = to_markdown(&n);
        assert!(markdown.starts_with("# Obama on guns\n"), "{markdown}");
        assert!(markdown.contains("1. [BBC News](https://www.bbc.co.uk/news/world-us-canada-33646542)"), "{markdown}");
        assert!(markdown.contains("[1] \"Mr Obama said it was \"distressing\".\""), "{markdown}");
        let text = to_text(&n);
        assert!(!text.contains('#') && !text.contains("]("), "{text}");
        assert!(text.contains("BBC News <https://www.bbc.co.uk/news/world-us-canada-33646542>"), "{text}");
    }

    #[test]
    fn csv_exports_a_table_or_one_row_per_note() {
        let table = to_csv(&note("| Name | Price |\n|---|---|\n| Boots, leather | 59.96 |\n")).unwrap();
        assert_eq!(table, "Name,Price\n\"Boots, leather\",59.96\n");
        let row = to_csv(&note("Plain \"quoted\" text")).unwrap();
        let mut reader = csv::Reader::from_reader(row.as_bytes());
        let record = reader.records().next().unwrap().unwrap();
        assert_eq!(&record[0], "note_3");
        assert_eq!(&record[5], "Plain \"quoted\" text");
    }

    /// The PDF's structure checked by hand (a PDF reader crate as a dev-dependency changes the
    /// features of crates the engine shares and rebuilds it for tests alone): header, trailer,
    /// a cross-reference table where `startxref` says, every object it lists at its offset, the
    /// page count, and the text in the content streams, in WinAnsi bytes.
    #[test]
    fn the_pdf_is_a_real_pdf_holding_the_text_on_as_many_pages_as_it_needs() {
        let long: String =
            (0..200).map(|i| format!("Paragraph {i} says something about café prices — “quoted”.\n\n")).collect();
        let bytes = to_pdf(&note(&long));
        let text = String::from_utf8_lossy(&bytes);
        assert!(bytes.starts_with(b"%PDF-") && text.trim_end().ends_with("%%EOF"));
        let startxref: usize =
            text.rsplit("startxref").next().unwrap().split_whitespace().next().unwrap().parse().unwrap();
        assert!(bytes[startxref..].starts_with(b"xref"));
        // Offsets count bytes; the lossy text above has replaced the WinAnsi ones.
        let table = String::from_utf8_lossy(&bytes[startxref..]);
        let count: usize = table.lines().nth(1).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
        for (n, entry) in table.lines().skip(2).take(count).enumerate().skip(1) {
            let offset: usize = entry[..10].parse().unwrap();
            assert!(bytes[offset..].starts_with(format!("{n} 0 obj").as_bytes()), "object {n} is not at {offset}");
        }
        let pages: usize =
            text.split("/Count ").nth(1).unwrap().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
        assert!(pages >= 4, "{pages} pages");
        assert_eq!(
            text.matches("/Type /Page\n").count()
                + text.matches("/Type /Page ").count()
                + text.matches("/Type /Page/").count(),
            pages,
            "{text}"
        );
        assert!(text.contains("(Obama on guns) Tj"), "the title");
        // A line with bytes past ASCII is written as a hex string: é is WinAnsi 0xE9.
        let line = win_ansi("Paragraph 0 says something about café prices — “quoted”.");
        let hex: String = line.iter().map(|b| format!("{b:02X}")).collect();
        assert!(hex.contains("636166E9") && text.contains(&format!("<{hex}> Tj")), "the first paragraph");
        assert_eq!(win_ansi("é — “x”…€"), [0xE9, b' ', 0x97, b' ', 0x93, b'x', 0x94, 0x85, 0x80]);
        assert!(text.contains("(Sources) Tj"), "the sources come last");
    }

    #[test]
    fn wrapping_keeps_words_whole_and_cuts_only_what_cannot_fit() {
        assert_eq!(wrap("aaa bbb ccc", 7), vec!["aaa bbb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 10), vec![""]);
        assert_eq!(wrap("  - item text", 8), vec!["  - item", "  text"]);
    }
}
