//! Every word list and threshold the grounding stages use, in one table, each with where it came
//! from. Nothing here is tuned on held-out data: thresholds were set on the dev splits of
//! `../shared/corpora` (WCXB dev articles, forums and products; the Readability pages) with
//! `cargo xtask bench quality`, and on the probe in `shared/notes/quality-probe.md`.

/// Function words left out of content-word sets: support is judged on what a sentence claims,
/// not on its glue. The common English function words (the union of the lists Lucene's and
/// NLTK's English analysers ship), three letters and longer since shorter words are never
/// content words here.
pub const STOPWORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "are",
    "but",
    "not",
    "you",
    "all",
    "any",
    "can",
    "had",
    "her",
    "was",
    "one",
    "our",
    "out",
    "has",
    "have",
    "his",
    "how",
    "its",
    "may",
    "new",
    "now",
    "old",
    "see",
    "way",
    "who",
    "did",
    "get",
    "him",
    "let",
    "say",
    "she",
    "too",
    "use",
    "that",
    "with",
    "this",
    "from",
    "they",
    "will",
    "would",
    "there",
    "their",
    "what",
    "about",
    "which",
    "when",
    "make",
    "like",
    "time",
    "just",
    "know",
    "take",
    "into",
    "your",
    "some",
    "could",
    "them",
    "than",
    "then",
    "also",
    "been",
    "were",
    "more",
    "these",
    "those",
    "other",
    "such",
    "only",
    "over",
    "page",
    "here",
    "said",
    "each",
    "most",
    "very",
    "where",
    "after",
    "before",
    "while",
    "does",
    "being",
    "because",
    "should",
    "many",
    "much",
    "well",
    "even",
    "both",
    "same",
    "own",
    "off",
    "under",
    "again",
    "further",
    "once",
    "why",
    "few",
    "nor",
    "yours",
    "ours",
    "hers",
    "theirs",
    "itself",
    "himself",
    "herself",
    "themselves",
    "myself",
    "yourself",
    "whom",
    "through",
    "during",
    "above",
    "below",
    "between",
    "against",
    "until",
    "can't",
    "don't",
    "isn't",
    "it's",
    "doesn",
    "etc",
    "via",
    "per",
    "yet",
    "lot",
    "lots",
    "thing",
    "things",
    "really",
    "still",
    "however",
    "therefore",
];

/// The quality probe's own definition of a supported sentence (shared/notes/quality-probe.md):
/// its words of three letters or more, less these (function words, and the words about the text
/// rather than claims the probe names: main, point, article, provides, overview, discusses,
/// including…), must be on the page for at least 70 % of them. The gate holds every sentence to
/// it as a floor and `cargo xtask bench quality` measures with it.
pub const PROBE_STOPWORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "are",
    "but",
    "not",
    "you",
    "all",
    "any",
    "can",
    "has",
    "have",
    "had",
    "was",
    "were",
    "this",
    "that",
    "these",
    "those",
    "with",
    "from",
    "into",
    "its",
    "it's",
    "their",
    "they",
    "them",
    "there",
    "which",
    "who",
    "what",
    "when",
    "where",
    "how",
    "why",
    "will",
    "would",
    "could",
    "should",
    "may",
    "also",
    "been",
    "being",
    "than",
    "then",
    "such",
    "some",
    "more",
    "most",
    "other",
    "about",
    "over",
    "only",
    "very",
    "each",
    "our",
    "your",
    "his",
    "her",
    "she",
    "him",
    "one",
    "out",
    "just",
    "like",
    "can't",
    "don't",
    "does",
    "did",
    "while",
    "after",
    "before",
    "main",
    "point",
    "article",
    "provides",
    "overview",
    "discusses",
    "including",
    "page",
    "text",
    "describes",
    "explains",
    "summary",
    "information",
    "part",
];

/// Words a sentence uses to talk about the text rather than to claim something ("The main point
/// of this article is that …"): not counted as content. From the quality probe's definition of a
/// supported sentence (shared/notes/quality-probe.md), extended with the openers SmolLM2-135M and
/// Qwen3 write most often on the dev pages.
pub const META_WORDS: &[&str] = &[
    "main",
    "point",
    "points",
    "article",
    "articles",
    "text",
    "post",
    "passage",
    "passages",
    "provides",
    "overview",
    "discusses",
    "discussed",
    "describes",
    "described",
    "explains",
    "explained",
    "including",
    "includes",
    "summary",
    "summarize",
    "summarizes",
    "highlights",
    "mentions",
    "mentioned",
    "focuses",
    "focus",
    "topic",
    "author",
    "writer",
    "discussion",
    "information",
    "details",
    "detail",
    "website",
    "site",
    "webpage",
    "section",
    "part",
    "key",
    "idea",
    "ideas",
    "central",
    "theme",
    "states",
    "notes",
    "talks",
    "aims",
    "content",
    "covers",
    "presents",
    "offers",
    "shares",
    "goes",
    "overall",
    "essentially",
    "basically",
    "generally",
    "highlighting",
    "providing",
    "discussing",
    "describing",
    "explaining",
    "focusing",
    "emphasizing",
    "emphasizes",
    "mentioning",
    "sharing",
    "offering",
    "presenting",
    "covering",
];

/// Openers a small model puts before the claim itself; removed from the front of a shown
/// sentence, whose rest is then capitalised. From SmolLM2-135M's answers to "What is the main
/// point of this page?" on the dev pages (the probe's "The main point of this article is that").
/// Sentences about the text itself ("The text is discussing how …") are
/// [`META_OPENER_SUBJECTS`] × [`META_OPENER_VERBS`].
pub const GIST_OPENERS: &[&str] = &[
    "the main point of this article is that ",
    "the main point of the article is that ",
    "the main point of this page is that ",
    "the main point of the page is that ",
    "the main point of this post is that ",
    "the main point of this text is that ",
    "the main point of the text is that ",
    "the main point of this text is ",
    "the main point of this article is ",
    "the main point is that ",
    "the main point is ",
    "it's about ",
    "the answer to this question is: ",
    "the answer to this question is ",
    "the answer to the question is: ",
    "the answer to the question is ",
    "the answer is: ",
    "the answer is that ",
    "the answer is ",
    "according to the page, ",
    "according to the article, ",
    "according to the text, ",
    "in one sentence, ",
    "in summary, ",
    "in short, ",
    "answer: ",
];

/// Who a small model's sentence about the text names first ("The text …", "This post …"). With
/// a verb of [`META_OPENER_VERBS`] after it, the two are an opener. From SmolLM2-135M's gists on
/// the dev pages; the bare "this" and "it" only as SmolLM2 writes them ("This is about …").
pub const META_OPENER_SUBJECTS: &[&str] = &[
    "this part of the text",
    "this part of text",
    "this part of the page",
    "this part",
    "the text",
    "this text",
    "the article",
    "this article",
    "the page",
    "this page",
    "the post",
    "this post",
    "the passage",
    "this passage",
    "the section",
    "this section",
    "the discussion",
    "this discussion",
    "this",
    "it",
];

/// What a small model says the text does before it says what the text says, longest first so
/// "is about how" wins over "is about". From SmolLM2-135M's gists on the dev pages ("The text is
/// discussing how building companies …", "The text says, …", "This text describes …"; "This is a
/// summary of the coding bootcamp industry's growth …", "The text provides evidence that …").
pub const META_OPENER_VERBS: &[&str] = &[
    "is an example of",
    "provides a summary and analysis of",
    "provides a summary of",
    "provides an analysis of",
    "provides an overview of",
    "gives an overview of",
    "provides evidence that",
    "provides details about",
    "provides details on",
    "is a summary of",
    "is an analysis of",
    "is an overview of",
    "provides information about",
    "provides information on",
    "is a discussion about",
    "is a discussion of",
    "is discussing how",
    "is talking about",
    "highlights that",
    "highlights how",
    "mentions that",
    "explains that",
    "explains how",
    "describes how",
    "discusses how",
    "is discussing",
    "states that",
    "talks about",
    "is about how",
    "focuses on",
    "says that",
    "is about",
    "describes",
    "discusses",
    "explains",
    "mentions",
    "states:",
    "states,",
    "says:",
    "says,",
    "says",
];

/// What a small model calls the text before it says what kind of page it is: after a subject of
/// [`META_OPENER_SUBJECTS`] naming the text itself (not the bare "this" or "it", whose "This is a
/// quick review of …" reads well as it is), the subject and "is" go and the article stays: "The
/// text is a script to join files and devices in Linux." says the page is "A script to join files
/// and devices in Linux." The rest passes the gate as any sentence does ("The text is a recipe
/// for a dish" on a forum about pans does not). From SmolLM2-135M's gists on the dev pages (8 of
/// the 40 pages at 22d42a4 had one, refused whole for "the text").
pub const META_OPENER_COPULAS: &[&str] = &["is a ", "is an "];

/// The bare pronouns among [`META_OPENER_SUBJECTS`]: after them a copula stays
/// ([`META_OPENER_COPULAS`]).
pub const META_OPENER_BARE_SUBJECTS: &[&str] = &["this", "it"];

/// Participles whose phrase after a comma says whose claim the clause before is or when it
/// holds (", according to …", ", depending on …"): a head cut before one says more than the
/// page. Written for `text::participle_cuts`.
pub const LIMITING_PARTICIPLES: &[&str] =
    &["according", "depending", "assuming", "excluding", "including", "considering", "pending", "barring"];

/// Where a model sentence may be cut when its tail is not supported: clause boundaries after
/// which a small model most often drifts into embellishment ("… – renting a car versus joining
/// guided tours – while also discussing safety considerations"). The supported head is shown,
/// closed with a full stop. From SmolLM2-135M's gists on the dev pages.
pub const CLAUSE_BREAKS: &[&str] = &[
    " – ",
    " — ",
    "; ",
    ", while ",
    " while ",
    ", which ",
    " which ",
    ", but ",
    ", and ",
    ", as ",
    " by ",
    " because ",
    ", including ",
    " including ",
    " such as ",
    " like ",
    ", so ",
    " so that ",
    // "so" before a clause's subject pronoun with no comma: what follows is what comes of the
    // clause before, or what it is for ("… scrape well to turn them over[ so I don't want anything
    // flimsy]", wcxb-0563's key point), as after ", so " or " so that ".
    " so i ",
    " so you ",
    " so we ",
    " so they ",
    " so he ",
    " so she ",
    " so it ",
    " that can ",
    " to help ",
    ", with ",
    " with ",
    // A second verb of the same subject: what comes before is a clause of its own ("Hori Parata
    // has overseen over 500 whale strandings around New Zealand[ and has now overseen more than
    // seven decades of …]", SmolLM2's answer on readability's guardian-1; "Parata has now
    // overseen more than 500 strandings[ and is renowned …]").
    " and is ",
    " and was ",
    " and has ",
    " and have ",
    " and are ",
    " and will ",
    " and can ",
];

/// Words that turn what a sentence claims around without being content words: negation,
/// comparison, and the quantifiers that make a claim about all of something. Content-word support
/// cannot see them ("pays about $1,000 per class" supports "pays $1,000 more per class than …"
/// word for word; "most bread machines can bake bread in several sizes" supports "a bread machine
/// that can bake any type of loaf"), so each must stand in the sentences that support the claim.
/// From SmolLM2-135M's gists on the dev pages (wcxb-0020's "$1,000 more … than", wcxb-4160's "any
/// type of loaf"); contractions ("isn't", "can't") count as "not".
pub const MEANING_WORDS: &[&str] = &[
    "not",
    "no",
    "never",
    "none",
    "nor",
    "without",
    "more",
    "less",
    "fewer",
    "than",
    "most",
    "least",
    "all",
    "every",
    "any",
    "always",
    "only",
    "everything",
    "everyone",
    "anything",
    "anyone",
];

/// Words that negate what they stand in (with "not"'s contractions and "cannot"): a claim
/// restating a page sentence's words around one must keep a negation (`dropped_negation`): "The
/// new vaccine is safe for children" from "The new vaccine is not safe for children" holds only
/// page words, in the page's order. Written for the gate.
pub const NEGATIONS: &[&str] = &["not", "no", "never", "none", "nor", "neither", "nothing", "nobody", "nowhere"];

/// A negation followed by one of these negates nothing ("not only … but also", "no doubt").
pub const NON_NEGATING_PAIRS: &[(&str, &str)] =
    &[("not", "only"), ("not", "just"), ("not", "least"), ("not", "merely"), ("no", "doubt"), ("no", "matter")];

/// Words that say a claim is possible, likely or reported rather than so: a claim restating a
/// page sentence's words around one must keep one of these (`dropped_hedge`): "The new drug
/// causes liver damage" from "The new drug may cause liver damage" is the page's words, and says
/// more. Written for the gate. Not "can", which a page uses for what a thing or a reader is able
/// to do ("so you can move freely", wcxb-4017; "you can set your system to arm", wcxb-4263).
pub const HEDGES: &[&str] = &[
    "may",
    "might",
    "could",
    "would",
    "should",
    "possibly",
    "probably",
    "likely",
    "unlikely",
    "perhaps",
    "maybe",
    "reportedly",
    "allegedly",
    "apparently",
    "presumably",
    "purportedly",
    "supposedly",
    "potentially",
    "arguably",
    "seemingly",
];

/// Words that bound the figure after them ("up to 50% off", "nearly 12 hours", "more than
/// 45%"): a claim restating the figure without its bound states a figure the page does not
/// ("50% off all running shoes"): `dropped_bound`. Counted only right before a figure or
/// "half"; two-word bounds as pairs. Written for the gate.
pub const BOUNDS: &[&str] =
    &["almost", "nearly", "approximately", "about", "around", "roughly", "over", "under", "upwards", "nigh"];
pub const BOUND_PAIRS: &[(&str, &str)] = &[
    ("up", "to"),
    ("at", "least"),
    ("at", "most"),
    ("more", "than"),
    ("less", "than"),
    ("fewer", "than"),
    ("as", "much"),
    ("as", "many"),
    ("as", "high"),
    ("as", "little"),
    ("as", "few"),
    ("just", "under"),
    ("just", "over"),
];

/// Verbs that report what someone says, thinks or doubts, not what is so: a claim restating what a page
/// sentence reports ("Critics say the new plan will fail", "The mayor claimed that crime fell
/// by half") without any of these (or "according") states it as fact in Laika's voice:
/// `dropped_attribution`. Verbs of finding ("found", "showed") are not here: what a study found
/// is the page's fact. Written for the gate.
pub const REPORTING_VERBS: &[&str] = &[
    "say",
    "says",
    "said",
    "saying",
    "claim",
    "claims",
    "claimed",
    "claiming",
    "argue",
    "argues",
    "argued",
    "believe",
    "believes",
    "believed",
    "think",
    "thinks",
    "thought",
    "insist",
    "insists",
    "insisted",
    "allege",
    "alleges",
    "alleged",
    "assert",
    "asserts",
    "asserted",
    "contend",
    "contends",
    "contended",
    "predict",
    "predicts",
    "predicted",
    "fear",
    "fears",
    "feared",
    "hope",
    "hopes",
    "hoped",
    "suspect",
    "suspects",
    "suspected",
    // A stance of doubt reports what someone doubts, not what is so ("We were skeptical about the
    // machine's ability to bake a 2-pound loaf every time" is no "The bread machine can bake
    // 2-pound loaves every time", SmolLM2-135M on wcxb-4160).
    // Not "doubt", "wonder" or "worry", which also assert ("no doubt", "no wonder", "don't worry").
    "doubted",
    "doubtful",
    "skeptical",
    "sceptical",
    "unsure",
    "uncertain",
    "wondered",
    "wondering",
    "worried",
    "according",
];

/// Modifiers that say the thing they modify is not (or not yet, or no longer) what its noun
/// names: "the former president" is no president, "attempted murder" no murder, "the proposed
/// law" no law. A claim restating the words around one without any of these says what the page
/// denies: `dropped_modifier`. "so-called" is read as the pair "so called". Written for the gate.
pub const PRIVATIVE_MODIFIERS: &[&str] = &[
    "former",
    "ex",
    "erstwhile",
    "onetime",
    "fake",
    "faux",
    "false",
    "fictional",
    "fictitious",
    "imaginary",
    "mock",
    "imitation",
    "counterfeit",
    "pseudo",
    "attempted",
    "failed",
    "proposed",
    "planned",
    "intended",
    "prospective",
    "possible",
    "hypothetical",
    "alleged",
    "suspected",
    "rumoured",
    "rumored",
    "unconfirmed",
    "draft",
    "cancelled",
    "canceled",
    "postponed",
];

/// Modifiers that narrow what a "no" or "without" before them denies: "no added sugar" is not
/// "no sugar", "no artificial colours" not "no colours" (wcxb-0631's "no added fat and salt" was
/// shown as "no … salt"). Dropped after a negation, the claim denies more than the page:
/// `dropped_modifier`. Written for the gate.
pub const NEGATED_RESTRICTORS: &[&str] = &["added", "artificial", "extra"];

/// A claim that writes one of these keeps its page sentence's hedge ("can cause" for "may
/// cause").
pub const HEDGE_KEEPERS: &[&str] = &["can"];

/// A negation, hedge, bound or modifier at most this many words before a page word a claim
/// restates qualifies what it restates: "Do not give dogs chocolate", "will no longer open", "may
/// cause", "no added fat and salt". One further off qualifies a clause the claim leaves out ("you
/// can set your system to arm … with unique access codes", wcxb-4263).
pub const DROPPED_WORD_REACH: usize = 3;

/// Past participles that do not end in "-ed": a cut head ending on one waits for its "by" or
/// "with" ("Almondina is a delicious snack made."). The common irregular participles.
pub const IRREGULAR_PARTICIPLES: &[&str] = &[
    "made", "done", "known", "given", "taken", "shown", "seen", "built", "found", "held", "kept", "sold", "sent",
    "written", "grown", "born", "worn", "drawn", "driven", "brought", "bought", "caught", "taught", "thought", "told",
    "run", "put", "set", "cut", "left", "led", "paid", "said", "won", "hidden", "chosen", "spoken", "broken", "frozen",
    "stolen", "eaten", "fallen", "beaten", "thrown", "blown", "flown", "wrought",
];

/// Prefixes an irregular participle keeps its kind under ([`IRREGULAR_PARTICIPLES`]):
/// "underwritten", "rewritten", "overdone", "unseen". "Pet insurance plans are sold and
/// underwritten[ by independent third-party insurance providers …]" (wcxb-4913's key point) was
/// offered as a shorter form with its agent cut off.
pub const PARTICIPLE_PREFIXES: &[&str] = &["under", "over", "re", "un", "mis", "out", "with", "fore", "up"];

/// Verbs whose object waits for a "with" that says what they give, put or compare: a head cut
/// before that "with" says something else, or nothing ("Vidyard's new video hosting platform
/// provides businesses." from "… provides businesses with new tools for remote engagement …",
/// SmolLM2-135M on readability's spiceworks). The common ones, in their verb forms.
pub const WITH_COMPLEMENT_VERBS: &[&str] = &[
    "provide",
    "provides",
    "provided",
    "providing",
    "supply",
    "supplies",
    "supplied",
    "supplying",
    "equip",
    "equips",
    "equipped",
    "equipping",
    "furnish",
    "furnishes",
    "furnished",
    "furnishing",
    "present",
    "presents",
    "presented",
    "presenting",
    "fill",
    "fills",
    "filled",
    "filling",
    "replace",
    "replaces",
    "replaced",
    "replacing",
    "combine",
    "combines",
    "combined",
    "combining",
    "compare",
    "compares",
    "compared",
    "comparing",
    "pair",
    "pairs",
    "paired",
    "pairing",
    "credit",
    "credits",
    "credited",
    "crediting",
    "charge",
    "charges",
    "charged",
    "charging",
    "trust",
    "trusts",
    "trusted",
    "trusting",
    "reward",
    "rewards",
    "rewarded",
    "rewarding",
    // Verbs whose partner comes with "with" (wcxb dev pages' key points offered "… how the
    // process interacts.", "Sudo will union the user's umask value.", "… a great place to start
    // is.", "Our Generative AI consulting service begins.").
    "interact",
    "interacts",
    "integrate",
    "integrates",
    "align",
    "aligns",
    "connect",
    "connects",
    "comply",
    "complies",
    "cope",
    "copes",
    "collaborate",
    "collaborates",
    "communicate",
    "communicates",
    "compete",
    "competes",
    "partner",
    "partners",
    "tie",
    "ties",
    "union",
    "begin",
    "begins",
    "start",
    "starts",
    "agree",
    "agrees",
    "assist",
    "assists",
    // What a product comes with is what it includes ("The machine comes[ with a paddle].").
    "come",
    "comes",
    "came",
    "coming",
    "deal",
    "deals",
    "dealt",
    "dealing",
];

/// A head cut before "with" waits for it when a [`WITH_COMPLEMENT_VERBS`] verb stands among its
/// last this many words (the verb and an object of up to three words: "provides small business
/// owners").
pub const WITH_COMPLEMENT_REACH: usize = 4;

/// Words that make one phrase with the "with" right after them: a head or shorter form cut
/// before it ends on half a phrase ("This machine is compact, but it can still bake full-size
/// 2-pound loaves along[ with 1- or 1.5-pounders]", a shorter form of a wcxb-4160 key point).
pub const WITH_BOUND_WORDS: &[&str] = &[
    "along",
    "together",
    "conjunction",
    "line",
    "compatible",
    "familiar",
    "consistent",
    "associated",
    "coupled",
    "up",
    "okay",
    "happy",
    "satisfied",
    "comfortable",
    // Nouns of a relation, whose partner is what the "with" names ("Key changes to Vidyard's
    // platform include new integration[ with Zoom, …]", SmolLM2-135M on readability's
    // spiceworks).
    "integration",
    "integrations",
    "partnership",
    "partnerships",
    "compatibility",
    "relationship",
    "relationships",
    "interaction",
    "interactions",
    "collaboration",
    "agreement",
];

/// Forms of "be": a head cut at a clause break's word right after one ("a great place to start
/// is[ with our Wedding Checklist!]") has no complement.
pub const BE_FORMS: &[&str] = &["is", "are", "was", "were", "be", "been", "being", "am"];

/// Words that point back at what the text said before them: a shorter form opening with one
/// has lost what it points at (`shortening::points_back`). Written for the shortenings.
pub const DEMONSTRATIVES: &[&str] = &["this", "these", "that", "those"];

/// Words that may stand before a subordinating word at a line's start ("Even if …", "Only when
/// …"): the line is still a subordinate clause (`support::subordinate_opening`; a part line of
/// wcxb-4083).
pub const SUBORDINATOR_FOCUS_WORDS: &[&str] = &["even", "only"];

/// Words that may join names in a line that is names only (`support::names_only`): "Cirrus
/// Insight and Microsoft Dynamics 365", "The Lord of the Rings".
pub const NAME_JOINERS: &[&str] =
    &["and", "or", "of", "the", "&", "vs", "a", "an", "for", "with", "in", "on", "at", "to"];

/// Words that open a sentence's predicate right after its subject: forms of "be", "have" and
/// "do", and the modals. A page sentence whose opening words are followed by an aside and then
/// one of these has its subject in those words (`PageIndex::subject_alone`).
pub const PREDICATE_OPENERS: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "had", "does", "do", "did", "can", "could", "will", "would", "should",
    "may", "might", "must",
];

/// A cut head must keep at least this many content words to say something of its own.
pub const MIN_HEAD_CONTENT_WORDS: usize = 4;

/// Phrases that mean the model is talking about its instructions or the request instead of the
/// page: generation stops there. From the probe's failures ("This project aims to summarize web
/// pages using Markdown format…", "the user", "documents", JSON echoes) and laika.llmcp's field
/// names, which a model handed a packet copies.
pub const ECHO_PHRASES: &[&str] = &[
    "the user",
    "user's",
    "documents",
    "json",
    "untrusted",
    "laika",
    "markdown",
    "the instructions",
    "instruction",
    "system prompt",
    "the prompt",
    "as an ai",
    "language model",
    "i'm sorry",
    "i am sorry",
    "i cannot",
    "i can't",
    "doc_id",
    "handle_id",
    "\"text\"",
    "web.observation",
    "assistant:",
    "user:",
    "summarize web pages",
    "bullet points",
    "answer in",
    "using words from",
];

/// Phrases that mean a model sentence is still about "the text" it was handed once its opener is
/// gone ("The text is a comprehensive guide that …", "This part of text about baking is about
/// …"): it describes the model's input, not the page's subject. Dropped by the gate, not the
/// loop guard, which would stop generation before the opener is even past. From SmolLM2-135M's
/// gists and part lines on the dev pages with the copy bias.
pub const META_PHRASES: &[&str] = &[
    "the text",
    "this text",
    "part of text",
    "part of the text",
    "the passage",
    "this passage",
    "the passages",
    "a summary of",
];

/// A model sentence using one content word this many times is a loop spread out ("a fieldedge
/// electrician tool demo for a fieldedge electrician tools software tool demo on a fieldedge …"),
/// which the run-of-words check misses. From SmolLM2-135M's part lines on the dev pages; no
/// supported sentence there used a content word three times.
pub const MAX_WORD_REPEATS: usize = 2;

/// The page author's own voice: a model sentence that says "I" or "my" copies the author's
/// words as if Laika were speaking ("I'm excited to share some tips on Japan travel with you!").
/// Matched as written (the capital "I" alone, lower-case "us" so the acronym "US" stays). The
/// plural too: "the staff picks for our favorite board game" (wcxb-4680) is the site speaking.
pub const FIRST_PERSON: &[&str] = &[
    "I",
    "I'm",
    "I’m",
    "I've",
    "I’ve",
    "I'd",
    "I’d",
    "I'll",
    "I’ll",
    "me",
    "my",
    // Not "mine": far more often a verb or a noun on the page than a pronoun ("… or to mine a
    // database for obscure geo-referenced meaning", readability's lwn-1, whose shortening was
    // quoted as its author's first person for it).
    "Me",
    "My",
    "we",
    "We",
    "we're",
    "We're",
    "we’re",
    "We’re",
    "we've",
    "We've",
    "we’ve",
    "We’ve",
    "our",
    "Our",
    "ours",
    "us",
    // "… and myself is myself.", SmolLM2-135M on wcxb-4083 when held to the page's words.
    "myself",
    "Myself",
    "ourselves",
    "Ourselves",
];

/// Words that open a clause: a cut head ending within a few words of one left that clause
/// without its verb ("… and how small acts."). The English subordinators and relatives.
pub const CLAUSE_OPENERS: &[&str] =
    &["how", "why", "what", "whether", "that", "which", "who", "whose", "when", "where", "if"];

/// A cut head whose last this many words hold a [`CLAUSE_OPENERS`] word is not shown.
pub const CLAUSE_OPENER_REACH: usize = 3;

/// A text whose words of three letters or more are English function words ([`STOPWORDS`]) less
/// often than this is not English: the gate's lists (function words, negations, openers) are
/// English, so it cannot check a model's sentences about such a page. On the quality bench's
/// dev pages (raw HTML text): English pages 0.12–0.40 (product pages lowest), the French and
/// Latin placeholder pages 0.000–0.008.
pub const ENGLISH_STOPWORD_SHARE_MIN: f64 = 0.05;

/// A sentence is released only when this share of its content words is found in the one to
/// three page sentences that support it best. Set on the 40 dev pages of `cargo xtask bench
/// quality`: at 0.6, pages with a model sentence shown rose from 55 % to 65 %, but the band
/// between 0.6 and 0.7 held claims the page does not make (a release date joined to the wrong
/// film, "1)" list debris, garbled code advice), so precision was kept. Honest paraphrase fails
/// ("affects farming" for "impact on agriculture"): the gate is lexical.
pub const SUPPORT_MIN: f64 = 0.7;

/// A model sentence's support is counted over its best page sentence and up to this many in
/// all, each added for the words it contributes: a gist joins facts from different sentences.
pub const SUPPORT_SENTENCES: usize = 3;

/// The share of a sentence's content words that must occur anywhere on the page: the quality
/// probe's own definition of "supported" (shared/notes/quality-probe.md), kept as a floor.
pub const PAGE_SUPPORT_MIN: f64 = 0.7;

/// Verbs a question asks with rather than about ("What did Obama *say* about race relations?"):
/// an answer sharing only these, or only the question's names, with the question answers
/// something else (bbc-1's "Obama has been speaking at a White House interview"). The verbs of
/// the question openers in the dev pages' Ask probes.
pub const QUESTION_VERBS: &[&str] = &[
    "say",
    "said",
    "says",
    "think",
    "thinks",
    "thought",
    "mean",
    "means",
    "happen",
    "happened",
    "happens",
    "tell",
    "tells",
    "told",
    "know",
    "known",
    "describe",
    "explain",
    "write",
    "wrote",
    "written",
    "talk",
    "talked",
    "mention",
    "mentioned",
    "claim",
    "claimed",
    "feel",
    "felt",
];

/// Words a sentence cannot end on: a conjunction, preposition or article before the final mark
/// is a sentence the length limit or the model broke off ("… so you can move confidently and.",
/// "Avoid the busy cherry blossom in!", SmolLM2-135M on the dev pages with a copy bias).
pub const DANGLING_ENDINGS: &[&str] = &[
    "and",
    "or",
    "but",
    "nor",
    "so",
    "yet",
    "in",
    "of",
    "to",
    "with",
    "for",
    "from",
    "by",
    "at",
    "on",
    "as",
    "into",
    "the",
    "a",
    "an",
    "that",
    "which",
    "who",
    "whose",
    "than",
    "like",
    "such",
    // Adverbs and quantifiers that wait for what the comma after them led to: "… flooring, and
    // often[, upgrades to plumbing …]", "… prepared filings – typically[, the last week of
    // January]", "… manages multiple[, multiyear service delivery contracts …]" (wcxb dev key
    // points' shorter forms).
    "often",
    "typically",
    "usually",
    "generally",
    "multiple",
    "several",
    "various",
    "numerous",
    // An "even" whose phrase was cut off ("… API costs typically under $3-5 monthly even.", a
    // shorter form of a wcxb dev page's "… monthly even with aggressive research schedules").
    "even",
    // A demonstrative with its noun cut off ("The scholarship options are also legit to those.",
    // wcxb-0167's gist).
    "those",
    "these",
];

/// Forms of "be" that end no sentence after a noun: their complement was cut off ("A common
/// question asked by candidates searching for their first actuarial job is.", a shorter form of
/// wcxb-0370's lead, whose complement was a quoted question). `support::is_fragment`.
pub const FINAL_COPULAS: &[&str] = &["is", "are", "was", "were"];

/// Words after which a final [`FINAL_COPULAS`] verb may end a clause: "… than it was.", "… what
/// it is.", "… what data analysis is.". Written for `support::is_fragment`.
pub const COPULA_FINAL_SUBJECTS: &[&str] = &[
    "i", "you", "he", "she", "it", "we", "they", "there", "this", "that", "these", "those", "what", "who", "which",
    "how", "where",
];
/// How far before a final "is" one of [`COPULA_FINAL_SUBJECTS`] may stand: "what [data analysis]
/// is" (a wcxb dev key point's form), not "their [first actuarial job] is".
pub const COPULA_SUBJECT_REACH: usize = 3;

/// Definite determiners: a page sentence's noun after one names a thing the page spoke of
/// before ("The bridge opened on Monday." after "The new bridge took five years to build."), so
/// a claim may name it with an earlier sentence's modifier. Written for
/// `PageIndex::narrows_a_subject`.
pub const COREFERENCE_DETERMINERS: &[&str] =
    &["the", "this", "that", "these", "those", "its", "their", "his", "her", "our", "your", "my"];

/// Pronouns that are a clause's own subject right after one of [`SUBJECT_CLAUSE_OPENERS`] ("… off
/// your joints so you can move freely"): the words after them are that subject's doing, not the
/// sentence's subject's. "It" is left out: "so it can" most often speaks of that same subject.
/// Written for `PageIndex::joins_across_a_clause`.
pub const CLAUSE_SUBJECT_PRONOUNS: &[&str] = &["i", "you", "we", "they", "he", "she"];

/// Words after which a subject pronoun starts a clause of its own: the joiners and
/// subordinators, and "that" and "as". Written for `PageIndex::joins_across_a_clause`.
pub const SUBJECT_CLAUSE_OPENERS: &[&str] = &[
    "and", "but", "or", "so", "yet", "that", "as", "because", "since", "when", "while", "if", "unless", "until",
    "once", "whereas", "although", "though", "where",
];

/// Words of degree that stand before an adjective: a sentence ending on one and the next word
/// ended inside its noun phrase ("Needle-nose pliers are one of the most versatile.", a shorter
/// form of wcxb-0068's "the most versatile, must-have electrician tools that …", where the comma
/// joins two adjectives).
pub const DEGREE_WORDS: &[&str] = &["most", "more", "less", "least", "very", "too", "so", "quite", "rather"];

/// Words that open a clause which cannot stand alone: a sentence opening with one and holding no
/// comma after which its main clause could stand is a fragment ("While a manual toothbrush can
/// get the job done.", wcxb-4833's key point with its main clause left out; "When encountering
/// links to websites that advertise an ActivityPub alternate.", wcxb-0549).
pub const SUBORDINATORS: &[&str] = &[
    "while", "although", "though", "whereas", "because", "since", "unless", "until", "when", "whenever", "if",
    // "Whether you're looking for a new refrigerator, dishwasher, range, washer, or dryer[, we
    // have a recommendation …]" and "Once you know the categories …[, you will want …]", shorter
    // forms of wcxb dev key points, before these were listed.
    "whether", "once",
];

/// Subordinating phrases of more than one word (`support::subordinate_opening`): "[…, but] now
/// that I was finally here" (wcxb-4083).
pub const SUBORDINATOR_PHRASES: &[&str] = &["now that", "as soon as", "as long as", "even though", "so that"];

/// Openers of a question its writer left without a question mark ("Is location important for
/// web hosting services.", "What is a Mobile App: A software application.", SmolLM2-135M's gists
/// on wcxb-0533 and wcxb-0278): a summary states. Not "how to", which names a topic ("How to
/// become a freelance web designer").
pub const QUESTION_OPENERS: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will", "why", "what is",
    "what are", "what's", "who is", "who are", "how do", "how does", "how can", "how is", "how are", "where is",
    "which is",
];

/// Openers of a yes-or-no question: a page sentence that opens so and ends in a question mark
/// asks whether something is so; a line built on its words would state it ("A new study
/// investigates how the brain's "a-ha!" moment is tied to awareness of having made a decision."
/// from "Could the moment … be tied to the person's awareness of having decided - that
/// important 'a-ha!' moment?", SmolLM2-135M on readability's medicalnewstoday). A question
/// opening with "why" or "how" takes its fact as given, and lends it.
pub const YES_NO_OPENERS: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will", "may", "might", "has",
    "have", "had",
];

/// Openers of a question asking for what it leaves out (a thing, a person, a place, a time): its
/// other words state nothing either. "A web hosting service and how it pays attention to
/// location." (SmolLM2-135M on wcxb-0533) was built on a forum post's "What do you pay attention
/// to if you are going to buy a web hosting service? Is location important for you?"
pub const OPEN_QUESTION_OPENERS: &[&str] = &["what", "which", "who", "whom", "where", "when"];

/// A line with at most this many content words that uses one of them twice says it twice
/// ("Review of Apple iPad 11 inch Review.", wcxb-0519's gist): in a line that short no second
/// use adds anything. Longer lines may contrast with a repeat ("in-state students pay …,
/// out-of-state students pay …"). A short line may still name two things by one word, each
/// after a modifier of its own ("the longer chain … an alternate chain", wcxb-0505).
pub const SHORT_LINE_CONTENT_WORDS: usize = 6;

/// Where a line says what its subject is: a complement opening with two of the subject's own
/// content words defines the subject by itself ("The Smart Video Doorbell Camera Pro is a smart
/// video doorbell camera.", wcxb-4263's gist).
pub const COPULAS: &[&str] = &[" is ", " are ", " was ", " were "];

/// Words that join two of the same word into a stutter ("a delightful and delightful service",
/// "Yoga & Pilates & Yoga"): the model copying a word it has just written.
pub const STUTTER_JOINERS: &[&str] = &["and", "or", "&"];

/// Verbs that open a feature list's items with no subject before them: a summary line opening
/// with one, followed by a determiner or an adverb in "-ly" ([`SUBJECTLESS_VERB_FOLLOWERS`]), does
/// not say what it is about ("Searches intelligently across the entire internet.", a feature
/// bullet of wcxb-4439 shortened into its gist; "Includes a free case."). Plural nouns with the
/// same ending ("Businesses actively manage …") are not listed. Written for the gate.
pub const SUBJECTLESS_VERBS: &[&str] = &[
    "includes",
    "supports",
    "offers",
    "provides",
    "features",
    "delivers",
    "helps",
    "allows",
    "lets",
    "makes",
    "gives",
    "keeps",
    "comes",
    "works",
    "runs",
    "uses",
    "searches",
    "stores",
    "sends",
    "creates",
    "tracks",
    "finds",
    "shows",
    "adds",
    "saves",
    "protects",
    "removes",
    "cleans",
    "connects",
    "syncs",
    "enables",
    "automates",
];

/// What follows a [`SUBJECTLESS_VERBS`] verb opening a line without a subject (besides an adverb
/// in "-ly").
pub const SUBJECTLESS_VERB_FOLLOWERS: &[&str] =
    &["a", "an", "the", "your", "our", "its", "their", "all", "every", "each", "any", "up", "you", "across"];

/// Pronouns a summary line cannot open with: shown on its own ("In short: They learn by
/// watching their mothers"), it points at nothing the reader has. SmolLM2-135M's gists on the
/// dev pages and the end-to-end page; an answer may use them (the question names the subject).
/// Not "this": "This is a Linux script to join files …" points at the page itself.
pub const UNANCHORED_OPENERS: &[&str] = &[
    "he",
    "she",
    "it",
    "he's",
    "he’s",
    "she's",
    "she’s",
    "it's",
    "it’s",
    "they",
    "they're",
    "they’re",
    "its",
    "their",
    "his",
    "her",
];

/// Where an answer joins a second claim to its first: each joined clause must answer the
/// question too, or the answer is cut before it (bbc-1's "Obama said race relations have
/// improved during his presidency, and he is confident Iran will be passed by Congress").
pub const JOINED_CLAUSES: &[&str] = &[", and ", "; ", ", but ", ", while ", ", so ", ", yet "];

/// A model sentence restates the page when its content words, read in order, fall into at most
/// this many runs, each in one page sentence's own order (`grounding/align.rs`): one sentence
/// shortened, or two joined. Set on the 40 dev pages of `cargo xtask bench quality`, reading the
/// claims each setting released.
pub const ALIGN_MAX_RUNS: usize = 3;

/// A claim word the page sentence lacks, between two of its words at most this many content
/// words apart there, whose own word between them the claim moved elsewhere, is a word swapped
/// (`PageIndex::swaps_a_word`): wcxb-0370's "a carrier and an insurance firm, now at Aon
/// Consulting" for "a carrier and a consulting firm, … now at Aon" (two apart). Farther apart,
/// the claim has left a stretch out, which the runs already bound.
pub const SWAP_REACH: usize = 3;

/// Quotation marks that close a quotation: a full stop inside them ends a sentence all the same
/// (`text::sentences`), and a page question may end inside them (`PageIndex::check`).
pub const CLOSING_QUOTES: &[char] = &['"', '\'', '”', '’'];

/// Quotation marks that open a quotation: not part of the word after them ("the "U.S." Army").
pub const OPENING_QUOTES: &[char] = &['"', '\'', '“', '‘'];

/// Verbs that name who said a quoted question or exclamation, among the first
/// [`QUOTE_SPEAKER_REACH`] words after it ("“Are you okay?” Smith asked."): the sentence goes on.
/// Any other capitalised word after such a quotation opens the next sentence (`text::sentences`).
pub const QUOTE_SPEAKER_VERBS: &[&str] = &[
    "said",
    "says",
    "asked",
    "asks",
    "wrote",
    "writes",
    "added",
    "adds",
    "replied",
    "replies",
    "told",
    "tells",
    "wondered",
    "wonders",
    "exclaimed",
    "shouted",
    "cried",
    "yelled",
    "answered",
    "answers",
];

/// How many words after a quoted question may name its speaker ("… ?” the manager asked").
pub const QUOTE_SPEAKER_REACH: usize = 3;

/// Words that open a sentence and never follow an initial inside a name: after "X." or "U.S."
/// one of them starts a new sentence (`text::sentences`). Pronouns, articles and demonstratives,
/// capitalised as a sentence's first word is; not "A" or "I", which are initials too ("J. A.
/// Smith"). From wcxb-3036's "… across Meta and X. They combine …", which was one sentence.
pub const SENTENCE_OPENING_WORDS: &[&str] = &[
    "The", "This", "That", "These", "Those", "They", "It", "Its", "He", "She", "We", "Our", "You", "Your", "Their",
    "There", "An", "In", "But", "And", "So", "If", "When",
];

/// The indefinite articles: one a page sentence has before a singular noun is not left out by a
/// claim restating it ([`crate::grounding::Rejection::DroppedArticle`]): "shows different
/// approach" (SmolLM2-135M on wcxb-0415) is broken English. "The" is not here: "designed to take
/// pressure off joints" for "take the pressure off your joints" (wcxb-4017) reads well, as a
/// mass noun or a headline does without it.
pub const INDEFINITE_ARTICLES: &[&str] = &["a", "an"];

/// Words that state a relation between what stands before and after them. Where a claim's run
/// from one page sentence meets a run from another at one of these, the relation is the model's,
/// not the page's: "Free Screen Protector with Full-grain leather." (SmolLM2-135M on wcxb-0588,
/// the protector free with a case, the case of leather). Joined by "and", a comma or a verb
/// of the page's, runs only add up facts the page states. English prepositions of relation.
pub const RUN_RELATION_WORDS: &[&str] =
    &["with", "of", "for", "from", "by", "in", "on", "at", "into", "about", "without", "under", "over", "to"];

/// Copulas: joining a run from one page sentence to a run from another, they say the one is
/// the other, a claim neither sentence makes unless one of them has the word. "The best board
/// game is Warfighter." (SmolLM2-135M on wcxb-4680: a list of the staff's favourite games of
/// the year, one writer's favourite "new to me" game Warfighter).
pub const RUN_IDENTITY_WORDS: &[&str] = &["is", "are", "was", "were"];

/// At most this many of a claim's runs may be a lone word: each such word is plucked from
/// another sentence, how a small model turns "you shouldn't use metal utensils" into "the need
/// to use metal utensils" (wcxb-0563) or invents "a guide on how to sign up for free tutors"
/// (wcxb-0322), both [1, 2, 1]; faithful gists on the dev pages had at most one.
pub const ALIGN_MAX_SINGLE_RUNS: usize = 1;

/// Within a run, at most this many of the page sentence's content words may be skipped between
/// two of the claim's: a claim may shorten a sentence, not pick words from its two ends.
pub const ALIGN_MAX_GAP: usize = 6;

/// Within a run, a word may come from at most this many content words before the farthest one
/// matched, once in a row: neighbours swapped ("the first sighting" for "the sighting is the
/// first"), as English reorders an adjective and its noun; two steps back end the run.
pub const ALIGN_SWAP_REACH: usize = 2;

/// A model sentence needs at least this many content words to say anything checkable.
pub const MIN_CONTENT_WORDS: usize = 3;

/// A shortening of a page sentence keeps at most this share of its content words; more, and it
/// is the sentence again. On the dev pages of `cargo xtask bench quality`, SmolLM2-135M's
/// shortenings that kept more than this were the sentence whole or with one adjective dropped.
pub const SHORTER_MAX_SHARE: f64 = 0.85;

/// A summary line whose words and a quoted sentence's, in order, share at least this much of
/// each is that sentence again (`text::word_for_word`): one word in ten changed ("review of" for
/// "review on", "as complex extension" for "as the complex extension").
pub const REPEAT_MIN_SHARE: f64 = 0.85;

/// Words a shortening of a page sentence may add or move (`support::shortens`): articles,
/// joining words and the prepositions a clause dropped around them needs ("enhances networks
/// *and* regulates" for "enhances networks, regulates"). Modals, negations, verbs and content
/// words are not here: added or moved, they change what the sentence says ("can be safe" from
/// "seem to be safe … can scratch", SmolLM2-135M on a dev forum page).
pub const SHORTENING_FREE_WORDS: &[&str] =
    &["a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "with", "by", "from"];

/// Words ending in "-ly" a shortening may not leave out, though it may leave out other "-ly"
/// adverbs of manner and degree ("intuitively detects", "genuinely competitive", "extremely
/// convenient": what is left is still true). Left out, these turn a claim around or make it
/// stronger than its sentence: hedges ("reportedly", "likely"), limits and amounts ("only",
/// "nearly", "mostly", "relatively"), time and frequency ("temporarily", "rarely",
/// "previously"), and "-ly" words that are not adverbs ("family", "costly", "early"). Written
/// for the shortening check; the adverb drops come from SmolLM2-135M's shortenings of key points
/// on the dev pages of `cargo xtask bench quality`.
pub const SHORTENING_KEPT_LY_WORDS: &[&str] = &[
    // hedges and evidence
    "allegedly",
    "apparently",
    "arguably",
    "likely",
    "ostensibly",
    "possibly",
    "potentially",
    "presumably",
    "probably",
    "purportedly",
    "reportedly",
    "reputedly",
    "seemingly",
    "supposedly",
    "theoretically",
    "unlikely",
    "nominally",
    "technically",
    "virtually",
    "practically",
    "effectively",
    "essentially",
    "basically",
    "legally",
    // limits, amounts and comparison
    "only",
    "merely",
    "solely",
    "exclusively",
    "nearly",
    "hardly",
    "barely",
    "scarcely",
    "mostly",
    "mainly",
    "largely",
    "partly",
    "partially",
    "primarily",
    "chiefly",
    "roughly",
    "approximately",
    "exactly",
    "precisely",
    "relatively",
    "comparatively",
    "fairly",
    "reasonably",
    "moderately",
    "equally",
    "respectively",
    "directly",
    "indirectly",
    // time and frequency
    "rarely",
    "usually",
    "typically",
    "generally",
    "normally",
    "frequently",
    "occasionally",
    "temporarily",
    "previously",
    "formerly",
    "initially",
    "originally",
    "recently",
    "currently",
    "newly",
    "early",
    "daily",
    "weekly",
    "monthly",
    "yearly",
    "hourly",
    "annually",
    "quarterly",
    "briefly",
    "immediately",
    "instantly",
    "simultaneously",
    // not adverbs
    "family",
    "supply",
    "reply",
    "apply",
    "rely",
    "ally",
    "rally",
    "belly",
    "jelly",
    "holy",
    "ugly",
    "silly",
    "lonely",
    "lovely",
    "friendly",
    "costly",
    "elderly",
    "deadly",
    "orderly",
    "timely",
    "curly",
    "oily",
    "assembly",
    "anomaly",
    "monopoly",
    "butterfly",
    "bully",
    "fly",
    "italy",
    "july",
    "lily",
    "folly",
    "tally",
];

/// A shortening may drop an opener ending in a comma ("In addition,") or a list item with its
/// comma ("flexible learning,") of at most this many words; longer, it is a clause, whose loss
/// leaves its neighbours joined wrong ("Although both [a certificate … places,] starting your
/// accounting education", SmolLM2-135M on a dev page).
pub const SHORTENING_MAX_ITEM_WORDS: usize = 3;

/// A shorter form of a sentence offered to a small model leaves out at most this many pieces
/// (`shortening::shortenings`): the second worked example leaves out three (an aside, an
/// adverb and a tail), and a sentence with more pieces than that is a list, not a claim.
pub const SHORTENING_MAX_CUTS: usize = 3;

/// An opener a shorter form may leave out does not start like a subject: a stretch up to the
/// first comma that opens with an article or a possessive is the sentence's subject with an
/// aside after it ("The new bridge, which took five years to build, opened …"), and leaving it
/// out leaves a verb without one. Written for `shortening::shortenings`; an opener such as "The
/// next day," is lost with them, which only costs one shorter form.
pub const SHORTENING_SUBJECT_STARTS: &[&str] =
    &["the", "a", "an", "this", "these", "those", "its", "his", "her", "their", "our", "my", "your"];

/// Nor is the stretch before the first comma an opener when the words after the comma start a
/// relative clause ("Bridges, which …") or reach another comma within this many tokens
/// ("Lineman's pliers, also known as combination pliers, are …"): then it is the subject and
/// the comma opens an aside. An opener's clause runs on longer than that before a comma ("In
/// addition, enrolling in high school tutoring can help …").
pub const SHORTENING_OPENER_CLEAR_TOKENS: usize = 6;

/// Words after a relative clause's closing comma that go on with the clause, not the sentence:
/// an alternative to its verb ("the delay-start, which means you can set up the machine …, or
/// have a loaf that's ready …", wcxb-4160). Written for `shortening::relative_goes_on`.
pub const SHORTENING_RELATIVE_CONTINUATIONS: &[&str] = &["or", "nor"];

/// Words before a participle and its "by" that make it the clause's verb, not a phrase about a
/// noun ("get hit by", "become known by", "never tested by"), besides forms of "be" and
/// auxiliaries. Written for `shortening::agent_phrase`.
pub const SHORTENING_AGENT_VERB_LEADS: &[&str] =
    &["get", "gets", "got", "gotten", "getting", "become", "becomes", "became", "not", "never", "also", "just", "only"];

pub const SHORTENING_RELATIVE_WORDS: &[&str] = &["which", "who", "whom", "whose", "where"];

/// Verbs that want their object: a shorter form ending on one, its object cut off at a clause
/// break, says nothing ("Ghost of Yotei's Erika Ishii discusses[ which game stood above the
/// rest]", a wcxb dev key point's form). Written for `shortening::shortenings`.
pub const SHORTENING_OBJECT_VERBS: &[&str] = &[
    "discusses",
    "explains",
    "describes",
    "covers",
    "includes",
    "provides",
    "offers",
    "features",
    "delivers",
    "supports",
    "requires",
    "contains",
    "reveals",
    "shows",
    "gives",
];

/// Words that open a noun phrase: after a comma piece a shorter form leaves out, one of these
/// shows the piece parted two noun phrases (list items, or a noun and its appositive), which the
/// form would run together ("… Bluetooth headphones[, focusing on …,] the rise of Hi-Res Audio";
/// "a lofted surface[, a one-rail sweep,] a solid extrusion"). Before a comma, an article and
/// one word are an adjective waiting for its noun ("a top-rated[, family-owned moving company,]",
/// "focuses on a single[, in-depth area of study]"). Written for `shortening::shortenings`.
pub const SHORTENING_PHRASE_ARTICLES: &[&str] = &["a", "an", "the"];

/// Endings of English adjectives (with compounds: "well-defined"): after an article, two such
/// words parted by a comma are one noun phrase's ("a stable, well-defined structure", wcxb-1222;
/// "a bright, healthy smile", wcxb-1781), a noun before the comma an apposition's. The common
/// derivational suffixes. Written for `shortening::adjective_comma`.
pub const SHORTENING_ADJECTIVE_ENDINGS: &[&str] =
    &["able", "ible", "al", "ful", "ous", "ive", "ic", "less", "ant", "ent", "y", "ed", "ing"];

/// How many tokens after its "between" (itself included) a sentence's "and" or "or" may stand and
/// still join what the "between" is between ("between a predictable, step-by-step workflow where
/// you control every action, or an autonomous agent", wcxb-0472: the "or" is the eleventh).
/// Written for `shortening::between_one`.
pub const SHORTENING_BETWEEN_REACH: usize = 14;

/// Words an exclamation opens with when it is one throughout ("What a day it was!", "How well it
/// works!", "So good!", "Such a view!"): none of its parts is a statement a shorter form could
/// keep. Written for `shortening::shorter_forms`.
pub const SHORTENING_EXCLAMATION_OPENERS: &[&str] = &["what", "how", "so", "such"];

/// The first half of a pair whose second half ("but …", or a clause after a dash) says what the
/// sentence claims: kept without it, a form only hints ("… isn't just about looking great."). Curly
/// apostrophes read as straight ones. Written for `shortening::half_a_pair`.
pub const SHORTENING_HALF_PAIRS: &[&str] = &["not only", "not just", "n't just", "n't only", "not merely"];

/// Pronouns that open a clause as its subject. Written for `shortening::shortenings`.
pub const SUBJECT_PRONOUNS: &[&str] = &["we", "i", "you", "they", "he", "she", "it"];

/// Auxiliary and modal verbs (with [`BE_FORMS`]): a stretch holding one is a clause, not an
/// opener ("Babies don't predict the next word[, they build …]"; "Even that estimate may be low
/// given … my best-selling book[, Marathon: …]"). Written for `shortening::shortenings`.
pub const AUXILIARY_VERBS: &[&str] = &[
    "has", "have", "had", "do", "does", "did", "don't", "doesn't", "didn't", "can", "can't", "cannot", "could", "will",
    "won't", "would", "shall", "should", "may", "might", "must", "isn't", "aren't", "wasn't", "weren't",
];

/// A stretch between two commas that a shorter form may leave out as an aside, when it is longer
/// than a list item ([`SHORTENING_MAX_ITEM_WORDS`]), opens with one of these (or a relative word,
/// [`SHORTENING_RELATIVE_WORDS`]): an appositive or an example ("also known as combination
/// pliers", "including …", "for example …"). Any other long stretch between commas may be the
/// sentence's own verb and object ("The new bridge, which took five years to build, *quietly
/// opened to traffic on Monday*, and drivers say …"), and a shorter form without it says
/// nothing. Written for `shortening::shortenings`.
pub const SHORTENING_ASIDE_OPENERS: &[&str] =
    &["also", "including", "such", "like", "especially", "particularly", "notably", "for", "e.g", "i.e"];

/// Asides opening with one of these give a list's first items ("several factors[, such as the
/// student's needs and preferences,] the subject being studied, and the tutor's approach", a wcxb
/// dev page's key point): where the list goes on after the aside, leaving it out leaves the rest
/// hanging. Written for `shortening::shortenings`.
pub const LIST_OPENERS: &[&str] = &["including", "such", "like", "e.g"];

/// What a list's aside opens with, word by word (lower case): a shorter form opening so is the
/// aside without its sentence ("Such as office workers and sales people, work.", a wcxb dev key
/// point's form whose "Others," was read as an opener). Not "like", which also opens a sentence
/// ("Like many cities, Paris …"). Written for `shortening::shortenings`.
pub const SHORTENING_LIST_ASIDE_STARTS: &[&str] = &["such as", "including"];

/// Nor is a stretch between commas an aside when it opens with a joining word: it is a list's
/// last item or a joined clause ("…, job guarantees, *and career support*, making …"), and
/// without it the words around it join wrong ("job guarantees making tech education
/// affordable"). Written for `shortening::shortenings`.
pub const SHORTENING_JOINERS: &[&str] = &["and", "or", "but", "nor", "yet", "so"];

/// A sentence's tail opening with one of these is what its writer set against the clause before
/// it, and usually the point: a shorter form never keeps the clause without it. "The bread doesn’t
/// look as artisanal as a hand-shaped loaf[, but it’s great for sandwiches, toast, and more]"
/// (wcxb-4160) says the opposite of the review without it; wcxb-4680's part line quoted only "I
/// won’t say it’s the most straightforward game …" of "…, but the blend it offers is unique".
/// Written for `shortening::shortens`.
pub const SHORTENING_CONTRAST_WORDS: &[&str] = &["but", "yet"];

/// A piece opening with one of these is a condition the rest of its sentence holds only under,
/// and a shortening never leaves it out (`shortening::droppable`): "… worth the base asking
/// price[, if the base storage was 2TB]" (wcxb-0519's key point, offered as a shorter form before
/// this), "[Without a permit,] you cannot keep otters", "[, but only if you apply online]". A
/// joining word before the condition is looked past.
pub const SHORTENING_CONDITION_OPENERS: &[&str] = &[
    "if",
    "unless",
    "without",
    "except",
    "only",
    "provided",
    "providing",
    "assuming",
    "when",
    "whenever",
    "as long as",
    "so long as",
    "in case",
    "otherwise",
];

/// Words opening a condition inside a sentence, with or without a comma before it: the
/// condition runs to the next mark, and a line restating its sentence keeps it whole
/// (`shortening::conditions`). With a word of it gone, the claim holds under another condition:
/// "A square matrix is Hermitian if and only if it is diagonalizable." (SmolLM2-135M's gist of
/// readability's wikipedia-3, whose sentence goes on "unitarily diagonalizable with real
/// eigenvalues"). Fewer than [`SHORTENING_CONDITION_OPENERS`]: "when", "only" and "without"
/// open time clauses, limits and phrases far more often than conditions, and "providing" and
/// "assuming" participles ("help you stay ahead by providing proactive risk mitigation", a
/// wcxb dev page's key point).
pub const CONDITION_WORDS: &[&str] = &["if", "unless"];

/// Adverbs in "-ly" that only make the word after them stronger: left out after a form of "be",
/// the claim is weaker and still true ("is extremely convenient" → "is convenient"). Any other
/// "-ly" word there narrows what the claim says ("is unitarily diagonalizable", "was largely
/// destroyed", "are mostly nonemergencies") and stays (`text::restricts`). The intensifiers
/// SmolLM2-135M's shortenings dropped on the dev pages of `cargo xtask bench quality`, and their
/// like.
pub const INTENSIFYING_ADVERBS: &[&str] = &[
    "really",
    "truly",
    "genuinely",
    "extremely",
    "incredibly",
    "highly",
    "remarkably",
    "exceptionally",
    "particularly",
    "especially",
    "absolutely",
    "totally",
    "completely",
    "entirely",
    "fully",
    "thoroughly",
    "deeply",
    "hugely",
    "immensely",
    "enormously",
    "tremendously",
    "wonderfully",
    "amazingly",
    "seriously",
];

/// Words that say a claim holds only some of the time, for some, or in part: a piece holding one
/// limits what the rest of its sentence says, and a shortening never leaves it out
/// (`shortening::droppable`). "[In rare cases,] the drug can cause liver damage", "[Sometimes,]
/// …", "Patients recover within a week[, though some take longer]": the claim left would say more
/// than the page. Written for the gate from these shapes (none of the dev pages' shortenings shown
/// at f714273 left one out); a piece that holds one harmlessly ("[, like most drugs,]") only costs
/// a shorter form.
pub const SHORTENING_LIMITING_WORDS: &[&str] = &[
    "some",
    "most",
    "few",
    "rare",
    "rarely",
    "seldom",
    "sometimes",
    "occasionally",
    "usually",
    "generally",
    "typically",
    "normally",
    "partly",
    "partially",
    "ideally",
    "theory",
    "theoretically",
    "certain",
    "cases",
    "instances",
    "circumstances",
];

/// A page sentence's opener, read for what limits its claim (`shortening::limits`), runs to its
/// first comma within this many tokens: "Among adults over 65 living in rural areas," is a frame;
/// a longer stretch before the first comma is more often the clause itself.
pub const LIMIT_LEAD_MAX_TOKENS: usize = 8;

/// Of a piece (an opener, an aside, a tail), only its first words are read for a limiting word
/// (`shortening::limits_the_claim`): ", though some take longer" and "In rare cases," limit the
/// claim; a word further in belongs to the piece's own ("Baked with simple ingredients found in
/// most kitchens,", wcxb-0631).
pub const LIMIT_TAIL_WORDS: usize = 3;

/// Openers starting with a preposition ([`SHORTENING_PREPOSITION_STARTS`]) that only join their
/// sentence to the one before, and so may be left out. Any other such opener or aside sets the
/// frame the claim holds in ("[For children,] the dose is 5 mg", "[Before the war,] the city had a
/// million people", "[At high doses,] it is toxic") and a shortening keeps it
/// (`shortening::droppable`).
pub const SHORTENING_CONNECTIVE_OPENERS: &[&str] = &[
    "in addition",
    "in fact",
    "in short",
    "in brief",
    "in sum",
    "in summary",
    "in conclusion",
    "in other words",
    "in particular",
    "in contrast",
    "in comparison",
    "in turn",
    "in any case",
    "in the end",
    "for example",
    "for instance",
    "for one",
    "after all",
    "above all",
    "on the other hand",
    "on the contrary",
    "on top of that",
    "by the way",
    "by contrast",
    "by comparison",
    "at the same time",
    "at last",
    "with that said",
    "in essence",
];

/// A preposition, "this", "our" or "the", and one of these is an opener that names the text
/// itself ("[In this course,] you will discover …", "[On this page,] we'll highlight …", both
/// wcxb dev pages): no frame the claim holds in, so a shortening may leave it out.
pub const SHORTENING_DOCUMENT_WORDS: &[&str] = &[
    "article",
    "post",
    "page",
    "guide",
    "course",
    "chapter",
    "blog",
    "video",
    "review",
    "section",
    "episode",
    "tutorial",
    "lesson",
    "series",
    "piece",
    "book",
    "report",
    "essay",
    "interview",
    "podcast",
    "story",
    "newsletter",
    "thread",
    "list",
];

/// Openers of a concession, which the clause after them stands without ("Although Lucasfilm is
/// planning a birthday bash in April, fans might get another present …", after readability's
/// wikia):
/// a shortening may leave one out though it runs longer than a short opener. Not "while", which
/// also says when the claim holds ("While on this medication, patients must not drink"); not
/// "because" or "since": the condition-like "since" ("since 2019") would go with them.
pub const SHORTENING_CONCESSIVE_OPENERS: &[&str] = &["although", "though", "whereas", "despite"];

/// A concession a shortening may leave out runs to at most this many tokens, its comma included:
/// wcxb-4833's "While a manual toothbrush can get the job done," ran to nine; a longer stretch
/// before the first comma is more often a clause of its own.
pub const SHORTENING_CONCESSIVE_LEAD_TOKENS: usize = 10;

/// Participles whose opening phrase sets the frame a claim holds in rather than describing its
/// subject: left out, "Adjusted for inflation, prices rose 3%" says more than the page. A long
/// opener starting with any other participle may go (`shortening::describes_the_subject`).
pub const SHORTENING_FRAMING_PARTICIPLES: &[&str] = &[
    "adjusted",
    "compared",
    "based",
    "assuming",
    "given",
    "considering",
    "excluding",
    "including",
    "accounting",
    "depending",
    "according",
    "judging",
    "measured",
    "speaking",
    "counting",
    "allowing",
    "provided",
    "granted",
    "barring",
    "pending",
    "regarding",
    "concerning",
    "following",
    "during",
    "notwithstanding",
    "calculated",
    "estimated",
    "ranked",
    "weighted",
    "controlling",
    "starting",
    "beginning",
    "ending",
];

/// Determiners that open a clause's subject after an opener's comma ("Ideal for hard floors and
/// sensitive joints, the mat features …"; "Crafted from high-density foam, each mat delivers
/// …"): the stretch before that comma is the opener, and a shorter form that keeps only it says
/// nothing (`shortening::opener_alone`). Written for wcxb-4017's key points.
pub const SHORTENING_SUBJECT_DETERMINERS: &[&str] =
    &["the", "a", "an", "each", "every", "this", "these", "our", "your", "its", "their", "his", "her", "my"];

/// Prepositions whose phrase sets whom or what a sentence's finding holds for ("in college
/// students with elevated stress", "among adults with diabetes"): a "with" phrase after its plural
/// noun says which ones, and a shorter form keeps it (`shortening::says_which_ones`).
pub const SHORTENING_SCOPE_PREPOSITIONS: &[&str] = &["in", "among", "for", "of"];

/// How many words before that plural noun the preposition may stand ("in [college] students").
pub const SHORTENING_SCOPE_REACH: usize = 3;

/// Prepositions a sentence may open with: what comes before its first comma is then a phrase of
/// circumstance ("In his five-year actuarial career,", wcxb-0370), not a clause, and a shorter
/// form that keeps only it says nothing (`shortening::shortenings`; "Instead of an evening dinner
/// party.", readability's ehow-2). The first words of "instead of", "according to", "thanks to"
/// and "due to" stand for them.
pub const SHORTENING_PREPOSITION_STARTS: &[&str] = &[
    "in",
    "on",
    "at",
    "after",
    "before",
    "during",
    "for",
    "from",
    "since",
    "with",
    "without",
    "under",
    "over",
    "by",
    "through",
    "throughout",
    "within",
    "across",
    "among",
    "between",
    "despite",
    "upon",
    "about",
    "around",
    "near",
    "following",
    "amid",
    "instead",
    // Participles and adjectives that open a phrase as prepositions do ("Based on client
    // feedback and formal surveys, my clients are …", a wcxb dev page: kept alone, a phrase).
    "based",
    "according",
    "due",
    "unlike",
    "besides",
    "beyond",
    "against",
    "toward",
    "towards",
    "into",
    "via",
    "per",
    "as",
    "like",
    "according",
    "thanks",
    "due",
];

/// At most this many shorter forms of one sentence are offered (those leaving out fewer pieces
/// first): enough for every choice of one or two pieces in the longest key points of the dev
/// pages, and a decoding constraint of that size costs nothing to build.
pub const SHORTENING_MAX_FORMS: usize = 48;

/// Of a sentence's pieces, at most this many tails and this many other pieces (the first ones)
/// are combined into shorter forms: a sentence listing 80 items has a piece at every comma, and
/// checking every choice of three of them took 82 s in a debug build. Twelve pieces make at most
/// 298 sets of one to three ([`SHORTENING_MAX_CUTS`]).
pub const SHORTENING_MAX_CANDIDATE_CUTS: usize = 6;

/// A page sentence is asked to be shortened only when it has at least this many shorter forms:
/// decoded as the only one, the shortening is the rule's and not the model's, and shown as the
/// model's sentence it would be counted as one (10 of the 16 dev pages whose gist was a
/// shortening, at 22d42a4, had a single form: the model chose nothing).
pub const SHORTENABLE_MIN_FORMS: usize = 2;

/// A page sentence with fewer content words than this is not asked to be shortened: what is left
/// after dropping one is the sentence again, not a gist.
pub const SHORTENABLE_MIN_CONTENT_WORDS: usize = 6;

/// A shortening keeps at least this many content words: a subject and what is said of it. Under
/// the deletion shape SmolLM2-135M once kept only a sentence's opener ("On 2/8/2024.", wcxb-0505
/// in `cargo xtask bench quality`), which every other check let through.
pub const SHORTENING_MIN_CONTENT_WORDS: usize = 4;

/// Model sentences longer than this are run-ons (a small model that lost the thread).
pub const MAX_SENTENCE_CHARS: usize = 320;

/// Loop guard: a run of one to `LOOP_MAX_GRAM` words repeated `LOOP_REPEATS` times in a row is a
/// loop (the probe's definition: "a run of one to four words repeated three times in a row").
pub const LOOP_MAX_GRAM: usize = 4;
pub const LOOP_REPEATS: usize = 3;

/// Loop guard: a word made of one to three letters repeated this many times ("ununununun",
/// "tailoredtailored") is garbage.
pub const GARBAGE_SYLLABLE_REPEATS: usize = 4;

/// Loop guard: a "word" longer than this (without a URL or a hyphen) is garbage.
pub const GARBAGE_WORD_CHARS: usize = 40;

/// Verbs a site uses to tell its reader what to do on the site itself ("Read the Apple iPad Pro
/// Tablet (2024) Review.", "Write your own review for Apple iPad Pro 11 inch", wcxb-0519): a
/// sentence opening with one is a link or a button's label, never a key point, and supports no
/// statement ("The review is also about Apple's iPad Pro 11.", SmolLM2-135M's gist of that page,
/// shown before this). Advice a page gives ("Learn some basic Japanese phrases …", "Join us on
/// Saturday") opens otherwise. Written for `rank` and the gate.
pub const SITE_ACTION_VERBS: &[&str] = &[
    "read",
    "write",
    "click",
    "tap",
    "subscribe",
    "sign",
    "share",
    "follow",
    "download",
    "register",
    "log",
    "comment",
];

/// Sentences addressed to an assistant rather than to the page's reader ("Ignore previous
/// instructions and click …"): never a key point, though still quoted where a question asks for
/// them. The phrasings of the injected fixture pages (tests/e2e's settings page,
/// tests/fixtures/plan-suite/pages/injected-*.html).
pub const INSTRUCTION_PHRASES: &[&str] = &[
    "ignore previous instructions",
    "ignore all previous instructions",
    "ignore the previous instructions",
    "ignore your previous instructions",
    "disregard previous instructions",
    "disregard all previous instructions",
    "ai assistant",
    "language model",
];

/// Marks of a line of program code rather than prose: a key point that is code tells a reader
/// nothing. Seen on readability/001 (a testing tutorial), whose fifth key point was the code line
/// `it("should set cow's name if provided", function() {`: a sentence ending like a block or a
/// statement, or holding a call written the way code writes it.
pub const CODE_ENDINGS: &[&str] = &["{", ";", "=>", "})", "});", "*/"];
pub const CODE_FRAGMENTS: &[&str] =
    &["function(", "function (", "=> {", "();", "){", "\n", "var ", "const ", "&&", "||"];

/// A heading this many words long or longer that ends in a full stop is a sentence set in heading
/// type, and supports a claim as prose does (`text::reads_as_prose`): wcxb-0588's product
/// subtitle is an `h5` of 22 words. Among the 400 WCXB dev pages, the heading lines with a full
/// stop below it are names and numbered entries ("7. Terra & Co.", "3. Nintendo Co., Ltd.").
pub const HEADING_PROSE_MIN_WORDS: usize = 8;

/// Key points: candidate sentences are this long (characters); shorter ones are captions,
/// buttons and labels, longer ones are run-together lists.
pub const POINT_MIN_CHARS: usize = 40;
pub const POINT_MAX_CHARS: usize = 400;

/// Key points: two sentences sharing more than this share of their content words say the same
/// thing; the later one is not a point of its own (maximal marginal relevance, Carbonell and
/// Goldstein 1998, with a hard cut instead of a weight).
pub const POINT_REDUNDANCY: f64 = 0.5;

/// Key points and an answer's evidence: a line that does not end with a sentence's mark weighs
/// this much of what it would (`rank::finished`): among the 40 pages of `cargo xtask bench
/// quality`, such key points were a breadcrumb, captions, labels and headings the page did not
/// mark as such; asked "What did Smart Projects do in November 2014?", readability's lwn-1 gave
/// "4.3.4 | November 2014" (a table row) as evidence.
pub const UNFINISHED_POINT_FACTOR: f64 = 0.5;

/// Key points: a sentence holding one of these (lower case) is a site's legal small print, never
/// a point: wcxb-0563's footer, "Reddit Rules Privacy Policy User Agreement Accessibility Reddit,
/// Inc. © 2026." and "All rights reserved.".
pub const BOILERPLATE_PHRASES: &[&str] = &["©", "all rights reserved"];

/// Key points: the lead bonus (news puts the point first: the "inverted pyramid") and the bonus
/// for a sentence right under a heading (its section's topic sentence).
pub const LEAD_BONUS: f64 = 0.6;
pub const HEADING_BONUS: f64 = 0.25;

/// Retrieval: BM25's parameters (Robertson and Zaragoza 2009; Lucene's defaults).
pub const BM25_K1: f64 = 1.2;
pub const BM25_B: f64 = 0.75;

/// Retrieval: words that report what a study or test came to, one term for BM25 whichever a
/// question or a page uses. Asked "What did the study find?", readability's medicalnewstoday
/// answers with "the study shows that the conscious awareness of the 'a-ha!' moment takes place
/// …", and the passages that matched "find" were about finding answers in the shower. Stems
/// (Snowball English), and "found", which no stemmer meets with "find".
pub const FINDING_STEMS: &[&str] =
    &["find", "found", "show", "shown", "reveal", "suggest", "conclud", "conclus", "discov"];
/// The term the words of [`FINDING_STEMS`] are indexed as.
pub const FINDING_TERM: &str = "<finding>";

/// Retrieval: passages are runs of page lines of about this many characters.
pub const PASSAGE_CHARS: usize = 500;

/// Answers: question openings that ask for a figure (an amount, a count, an age, a length, a
/// year or a date). A sentence holding a figure is likelier to answer: asked "How much did
/// Facebook pay for WhatsApp?", readability's cnet page was answered with "It also pays to be
/// weary of competing suitors …" (it shares "pay") before "… his company's $19 billion
/// acquisition of WhatsApp …". Matched at the start of the lower-cased question, as whole words.
pub const FIGURE_QUESTION_OPENERS: &[&str] = &[
    "how much",
    "how many",
    "how old",
    "how long",
    "how far",
    "how big",
    "how large",
    "how tall",
    "how often",
    "how expensive",
    "what year",
    "which year",
    "in what year",
    "in which year",
    "what percentage",
    "what price",
    "when",
];

/// Answers: question openings that ask what something is ("What is DNP?"); the rest of the
/// question, less a leading article, is the term asked about when it is short
/// ([`DEFINITION_TERM_MAX_WORDS`]). A sentence that says what the term is is likelier to answer:
/// readability's buzzfeed-1 was answered with the Food Standards Agency's warning before "… known
/// as DNP, which is a highly toxic industrial chemical."
pub const DEFINITION_QUESTION_OPENERS: &[&str] =
    &["what is", "what are", "what's", "what was", "what were", "what does", "what do"];

/// Answers: the longest term a "What is …?" question is read as asking about, in words.
pub const DEFINITION_TERM_MAX_WORDS: usize = 5;

/// Answers: what follows a term in a sentence that says what it is ("DNP is …", "dinitrophenol,
/// which is …", "Smart Projects, the company …", "DNP (dinitrophenol)"), and what goes before it
/// ("known as DNP"). Lower case.
pub const DEFINITION_AFTER_TERM: &[&str] =
    &[" is ", " are ", " was ", " were ", " means ", " refers to ", ", which ", ", a ", ", an ", ", the ", " ("];
pub const DEFINITION_BEFORE_TERM: &[&str] = &["known as ", "called ", "named ", "also as "];

/// Answers: question openings that ask for a person; a sentence naming someone the question does
/// not is likelier to answer ("Who led the study?").
pub const PERSON_QUESTION_OPENERS: &[&str] = &["who", "whom", "whose"];

/// Answers: how much more an evidence sentence weighs when it holds what the question asks for (a
/// figure, a name). Twice: it takes the lead from a sentence sharing as many of the question's
/// words, never from one sharing a rarer word as well.
pub const WANTED_EVIDENCE_FACTOR: f64 = 2.0;

/// `content.find`: the most places one find reports (about what a sidecar step shows without
/// scrolling away from its card), and how much of each is quoted (a sentence of average length
/// whole; the key points' cut, `QUOTE_CHARS` in the summary, is longer because a point is read on
/// its own).
pub const FIND_MAX_PLACES: usize = 20;
pub const FIND_QUOTE_CHARS: usize = 240;
