//! Retrieval for answers: the page cut into passages (runs of lines of about
//! [`PASSAGE_CHARS`]), ranked against a question with BM25 (Robertson and Zaragoza 2009) over
//! stemmed content words ([`terms`]). The whole page is searched, comments and reviews included.

use super::text::{self, Sentence};
use super::words::{
    BM25_B, BM25_K1, DEFINITION_AFTER_TERM, DEFINITION_BEFORE_TERM, DEFINITION_QUESTION_OPENERS,
    DEFINITION_TERM_MAX_WORDS, FIGURE_QUESTION_OPENERS, FINDING_STEMS, FINDING_TERM, PASSAGE_CHARS,
    PERSON_QUESTION_OPENERS, UNFINISHED_POINT_FACTOR, WANTED_EVIDENCE_FACTOR,
};
use std::collections::{HashMap, HashSet};

/// A passage of the page: its text and its byte offset in the text it was cut from.
#[derive(Clone, Debug, PartialEq)]
pub struct Passage {
    pub text: String,
    pub offset: usize,
}

/// Cuts text into passages of whole lines, each about `PASSAGE_CHARS` long (a longer line is a
/// passage of its own); blank lines are left out.
pub fn passages(text: &str) -> Vec<Passage> {
    let mut out: Vec<Passage> = Vec::new();
    let mut current: Option<(usize, usize)> = None; // (start, end) bytes
    let mut offset = 0;
    for line in text.split('\n') {
        let start = offset;
        let end = offset + line.len();
        offset = end + 1;
        if line.trim().is_empty() {
            continue;
        }
        current = match current {
            Some((s, e)) if end - s <= PASSAGE_CHARS || e - s < PASSAGE_CHARS / 4 => Some((s, end)),
            Some((s, e)) => {
                out.push(Passage { text: text[s..e].to_string(), offset: s });
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    if let Some((s, e)) = current {
        out.push(Passage { text: text[s..e].to_string(), offset: s });
    }
    out
}

/// A BM25 index over passages.
pub struct Bm25 {
    docs: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    average: f64,
    document_frequency: HashMap<String, f64>,
}

impl Bm25 {
    pub fn new(passages: &[Passage]) -> Bm25 {
        let mut docs = Vec::with_capacity(passages.len());
        let mut lengths = Vec::with_capacity(passages.len());
        let mut document_frequency: HashMap<String, f64> = HashMap::new();
        for passage in passages {
            let words = terms(&passage.text);
            lengths.push(words.len() as f64);
            let mut counts: HashMap<String, f64> = HashMap::new();
            for word in words {
                *counts.entry(word).or_default() += 1.0;
            }
            for word in counts.keys() {
                *document_frequency.entry(word.clone()).or_default() += 1.0;
            }
            docs.push(counts);
        }
        let average = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Bm25 { docs, lengths, average: average.max(1.0), document_frequency }
    }

    /// Passages by score for `query`, best first; only those matching at least one query word.
    pub fn rank(&self, query: &str) -> Vec<(usize, f64)> {
        let terms = query_terms(query);
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .map(|(i, counts)| {
                let score = terms
                    .iter()
                    .map(|t| {
                        let tf = counts.get(t).copied().unwrap_or(0.0);
                        if tf == 0.0 {
                            return 0.0;
                        }
                        self.idf(t) * tf * (BM25_K1 + 1.0)
                            / (tf + BM25_K1 * (1.0 - BM25_B + BM25_B * self.lengths[i] / self.average))
                    })
                    .sum::<f64>();
                (i, score)
            })
            .filter(|(_, score)| *score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
    }

    /// How much of `query` a piece of `text` (a sentence of a passage) holds: the inverse
    /// document frequency of each query word it has, summed. A word few passages share says more
    /// than one most do: asked "How many strandings has Hori Parata overseen?", the sentence with
    /// "overseen" answers, not the one that names "Hori Parata" again (readability's guardian-1).
    pub fn overlap(&self, query: &str, text: &str) -> f64 {
        let held: std::collections::HashSet<String> = terms(text).into_iter().collect();
        query_terms(query).iter().filter(|t| held.contains(*t)).map(|t| self.idf(t)).sum()
    }

    /// BM25's inverse document frequency of a word over the passages.
    fn idf(&self, term: &str) -> f64 {
        let n = self.docs.len() as f64;
        let df = self.document_frequency.get(term).copied().unwrap_or(0.0);
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// The share of the query's content words that occur in any passage.
    pub fn query_coverage(&self, query: &str) -> f64 {
        let terms = query_terms(query);
        if terms.is_empty() {
            return 0.0;
        }
        terms.iter().filter(|t| self.document_frequency.contains_key(*t)).count() as f64 / terms.len() as f64
    }
}

/// What a question asks for, read from how it opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// An amount, a count, an age, a year, a date ([`FIGURE_QUESTION_OPENERS`]).
    Figure,
    /// A person ([`PERSON_QUESTION_OPENERS`]).
    Person,
    /// What this term (lower case) is ([`DEFINITION_QUESTION_OPENERS`]).
    Definition(String),
    /// Anything else ("What did …", "Why …").
    Anything,
}

/// What `question` asks for.
pub fn wanted(question: &str) -> Wanted {
    let lower = question.trim().trim_end_matches(['?', '.', '!', ' ']).to_lowercase();
    let after = |openers: &[&str]| -> Option<String> {
        openers.iter().find_map(|o| {
            lower
                .strip_prefix(o)
                .filter(|rest| rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric()))
                .map(|rest| rest.trim().to_string())
        })
    };
    if after(FIGURE_QUESTION_OPENERS).is_some() {
        return Wanted::Figure;
    }
    if after(PERSON_QUESTION_OPENERS).is_some() {
        return Wanted::Person;
    }
    if let Some(rest) = after(DEFINITION_QUESTION_OPENERS) {
        let rest = rest.strip_suffix(" mean").unwrap_or(&rest);
        let term = ["the ", "a ", "an "].iter().find_map(|a| rest.strip_prefix(a)).unwrap_or(rest).trim();
        let words = term.split_whitespace().count();
        if (1..=DEFINITION_TERM_MAX_WORDS).contains(&words) {
            return Wanted::Definition(term.to_string());
        }
    }
    Wanted::Anything
}

/// Whether `sentence` says what `term` (lower case) is: the term, as whole words, followed by
/// [`DEFINITION_AFTER_TERM`] or preceded by [`DEFINITION_BEFORE_TERM`].
fn defines(sentence: &str, term: &str) -> bool {
    let lower = sentence.to_lowercase();
    lower.match_indices(term).any(|(at, _)| {
        let (before, after) = (&lower[..at], &lower[at + term.len()..]);
        let whole = !before.ends_with(char::is_alphanumeric) && !after.starts_with(char::is_alphanumeric);
        whole
            && (DEFINITION_AFTER_TERM.iter().any(|a| after.starts_with(a))
                || DEFINITION_BEFORE_TERM.iter().any(|b| before.ends_with(b)))
    })
}

/// The page sentences that best answer `question`, best first, at most `count`: the sentences of
/// the best-ranked `passages` (indices into `all`, ranked by [`Bm25::rank`]) that share a word
/// with it, weighed by [`Bm25::overlap`], twice ([`WANTED_EVIDENCE_FACTOR`]) when they hold what
/// it asks for ([`wanted`]: a figure, a name it does not give, or what its term is), half
/// ([`UNFINISHED_POINT_FACTOR`]) when they do not end like a sentence (a table row, a caption).
/// Headings are left out. Equals keep the order of their passages, then of the page.
pub fn evidence(
    bm25: &Bm25,
    all: &[Passage],
    passages: &[usize],
    sentences: &[Sentence],
    question: &str,
    count: usize,
) -> Vec<usize> {
    let wanted = wanted(question);
    let asked_names: HashSet<String> = text::names(question).into_iter().collect();
    let holds_wanted = |s: &Sentence| match &wanted {
        Wanted::Figure => !text::numbers(&s.text).is_empty(),
        Wanted::Person => text::names(&s.text).iter().any(|n| !asked_names.contains(n)),
        Wanted::Definition(term) => defines(&s.text, term),
        Wanted::Anything => false,
    };
    let mut scored: Vec<(f64, usize, usize)> = Vec::new(); // (weight, passage rank, sentence)
    for (rank, &p) in passages.iter().enumerate() {
        let Some(passage) = all.get(p) else { continue };
        let span = passage.offset..passage.offset + passage.text.len();
        for (i, s) in sentences.iter().enumerate().filter(|(_, s)| !s.heading && span.contains(&s.offset)) {
            let mut weight = bm25.overlap(question, &s.text);
            // A sentence sharing no word with the question is no evidence for it.
            if weight <= 0.0 {
                continue;
            }
            if holds_wanted(s) {
                weight *= WANTED_EVIDENCE_FACTOR;
            }
            if !super::rank::finished(s) {
                weight *= UNFINISHED_POINT_FACTOR;
            }
            scored.push((weight, rank, i));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    scored.into_iter().take(count).map(|(_, _, i)| i).collect()
}

/// The terms of a text as BM25 indexes them: its content words, stemmed (Snowball English:
/// "strandings" and "stranded" are one term), the words reporting a finding as one
/// ([`FINDING_STEMS`]).
fn terms(text: &str) -> Vec<String> {
    let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    text::content_words(text)
        .into_iter()
        .map(|word| {
            let stem = stemmer.stem(&word);
            if FINDING_STEMS.contains(&stem.as_ref()) { FINDING_TERM.to_string() } else { stem.into_owned() }
        })
        .collect()
}

/// A query's terms ([`terms`]), each once.
fn query_terms(query: &str) -> Vec<String> {
    let mut held = terms(query);
    held.sort();
    held.dedup();
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_tile_lines_and_bm25_finds_the_answer() {
        let text = format!(
            "H1: Otters\n\n{}\n\nOtters use stones to crack open clam shells on their bellies.\n\n{}\n\nReviews: great boots, size 42 fits.",
            "Rivers are long and wet. ".repeat(30),
            "Fish swim upstream in spring. ".repeat(30)
        );
        let all = passages(&text);
        assert!(all.len() >= 3, "{all:?}");
        for p in &all {
            assert_eq!(&text[p.offset..p.offset + p.text.len()], p.text);
        }
        let index = Bm25::new(&all);
        let best = index.rank("What do otters use stones for?");
        assert!(all[best[0].0].text.contains("crack open clam"), "{best:?}");
        assert!(all[index.rank("Does size 42 fit?")[0].0].text.contains("size 42"));
        assert!(index.rank("Who won the election?").is_empty());
        assert_eq!(index.query_coverage("otters election"), 0.5);
        // A rare word the question shares weighs more than a common one.
        let question = "Why do otters crack clam shells?";
        let rare = index.overlap(question, "Otters crack open clam shells.");
        assert!(rare > index.overlap(question, "Otters swim in rivers."), "{rare}");
        assert_eq!(index.overlap(question, "Fish swim upstream."), 0.0);
    }

    #[test]
    fn a_question_is_read_for_what_it_asks() {
        assert_eq!(wanted("How much did Facebook pay for WhatsApp?"), Wanted::Figure);
        assert_eq!(wanted("when did it open?"), Wanted::Figure);
        assert_eq!(wanted("Who led the study?"), Wanted::Person);
        assert_eq!(wanted("Whose boots are these?"), Wanted::Person);
        // Whole words only.
        assert_eq!(wanted("Whoever wrote this, what is it about?"), Wanted::Anything);
        assert_eq!(wanted("What did Smart Projects do?"), Wanted::Anything);
        assert_eq!(wanted("What is DNP?"), Wanted::Definition("dnp".into()));
        assert_eq!(wanted("what's the Moray Driver Kit?"), Wanted::Definition("moray driver kit".into()));
        assert_eq!(
            wanted("What does bounded evidence accumulation mean?"),
            Wanted::Definition("bounded evidence accumulation".into())
        );
        // Too long to be a term.
        assert_eq!(wanted("What is the reason the company gave for the sale of its shares?"), Wanted::Anything);
    }

    #[test]
    fn a_question_meets_the_page_in_other_forms_of_its_words() {
        // readability's medicalnewstoday, asked "What did the study find?": its finding is what
        // the study "shows"; the page's "find" is about answers found in the shower.
        let text = "Many of us find the answer to a hard question in the shower.\n\n\
                    The study shows that awareness comes when the brain reaches a threshold.\n\n\
                    Gun control was the area where he has been most frustrated.";
        let all = passages(text);
        let sentences = text::sentences(text);
        let index = Bm25::new(&all);
        let best = |question: &str| -> String {
            let top: Vec<usize> = index.rank(question).into_iter().map(|(i, _)| i).collect();
            sentences[evidence(&index, &all, &top, &sentences, question, 1)[0]].text.clone()
        };
        assert!(best("What did the study find?").starts_with("The study shows"));
        assert!(best("What is his biggest frustration?").starts_with("Gun control"));
    }

    #[test]
    fn a_sentence_saying_what_a_term_is_defines_it() {
        assert!(defines("The tablets contained dinitrophenol, known as DNP, which is toxic.", "dnp"));
        assert!(defines("DNP is not a miracle slimming pill.", "dnp"));
        assert!(defines("Bounded evidence accumulation (BEA) is a model.", "bounded evidence accumulation"));
        assert!(!defines("Stay away from products that contained DNP.", "dnp"));
        // Whole words only.
        assert!(!defines("The DNPA is a park authority.", "dnp"));
    }

    #[test]
    fn evidence_holds_what_the_question_asks_for_and_reads_as_sentences() {
        let text = "It also pays to be wary of rival suitors, Zuckerberg said.\n\
                    He is the man behind the $19 billion acquisition of WhatsApp.\n\
                    Smart Projects | WhatsApp 2014\n\
                    Smart Projects renamed itself after WhatsApp grew.";
        let all = passages(text);
        let sentences = text::sentences(text);
        let index = Bm25::new(&all);
        let top: Vec<usize> =
            index.rank("How much did Facebook pay for WhatsApp?").into_iter().map(|(i, _)| i).collect();
        let shown = |question: &str, n: usize| -> Vec<String> {
            evidence(&index, &all, &top, &sentences, question, n)
                .into_iter()
                .map(|i| sentences[i].text.clone())
                .collect()
        };
        // "pays" and "WhatsApp" are as rare as each other here: the figure decides.
        assert!(shown("How much did Facebook pay for WhatsApp?", 1)[0].contains("$19 billion"));
        // A line that is no sentence gives way to one that is.
        let smart = shown("What did Smart Projects do after WhatsApp?", 1);
        assert!(smart[0].starts_with("Smart Projects renamed"), "{smart:?}");
        // What a term is, for "What is …?".
        let text =
            "Eight tablets contained DNP.\nWest Mercia police said the tablets held dinitrophenol, known as DNP.";
        let (all, sentences) = (passages(text), text::sentences(text));
        let index = Bm25::new(&all);
        let top: Vec<usize> = index.rank("What is DNP?").into_iter().map(|(i, _)| i).collect();
        let best = evidence(&index, &all, &top, &sentences, "What is DNP?", 1);
        assert!(sentences[best[0]].text.contains("known as DNP"), "{best:?}");
        // Nothing sharing no word with the question.
        assert!(shown("Where do otters sleep?", 2).is_empty());
    }
}
