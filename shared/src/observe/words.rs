//! Every word list and threshold the reader's heuristics use, in one table, each with where it
//! came from: Readability.js's `REGEXPS` (unlikely candidates, positive and negative class
//! words) and its scoring values, trafilatura's lists, and what the WCXB and Zyte dev pages
//! taught (each rule was added for pages of the dev splits, `cargo xtask bench extraction`). The
//! stages refer to these by name. What stays in the code: HTML's own vocabulary (which tags are
//! headings, cells, list items), plain halves and doubles the doc comment at each use states,
//! and the sign-up phrase grammar of `clutter::sign_up_phrases` (phrases with lookahead, not a
//! list). The few functions at the end are how a list is matched (a class word, a part of a
//! class name, a heading tag).

/// Elements whose text a reader never sees.
pub(super) const INVISIBLE_TEXT: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "math", "title", "meta", "link",
    // Form controls: what they hold is the user's input or a list of choices, never page text.
    "textarea", "select", "option", "optgroup", "datalist",
];

/// Elements whose text is never page text: the invisible ones, embedded media, and form
/// controls (whose text is a value or a caption, not content).
pub(super) const NEVER_TEXT: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object", "embed", "head", "meta",
    "link", "input", "select", "textarea", "option", "optgroup", "datalist", "video", "audio", "source", "track",
    "map", "area", "param", "picture", "img", "button",
];

/// Deeper than this, a subtree is ignored: no real page needs it, and it bounds the work.
pub(super) const MAX_DEPTH: usize = 512;

/// Class or id words of page chrome (Readability's "unlikely candidates", extended).
pub(super) const CHROME_WORDS: &[&str] = &[
    "-ad-",
    "ad-break",
    "adsbygoogle",
    "advert",
    "agegate",
    "ai2html",
    "banner",
    "breadcrumb",
    "combx",
    "comment",
    "community",
    "cookie",
    "consent",
    "cover-wrap",
    "disqus",
    "footer",
    "gdpr",
    "header",
    "legends",
    "masthead",
    "menu",
    "navbar",
    "nav-",
    "newsletter",
    "outbrain",
    "pager",
    "pagination",
    // Links to the next and previous story, each with its title and excerpt.
    "next-prev",
    "prev-next",
    "prevnext",
    "nextprev",
    "popup",
    "promo",
    "related",
    "remark",
    "replies",
    "rss",
    "share",
    "sharing",
    "shoutbox",
    "sidebar",
    "skip-link",
    "skyscraper",
    "social",
    "sponsor",
    "subscribe",
    "supplemental",
    "taboola",
    "toolbar",
    "trending",
    "widget",
    "yom-remote",
    // Customer reviews under a product: other people's words about the page's subject, like
    // its comments (a review site's own review is named "review", singular).
    "reviews",
];

/// Chrome words of boxes that hold paragraphs of text and still are not the page's own.
pub(super) const PARAGRAPHED_CHROME_WORDS: &[&str] = &[
    "comment",
    "community",
    "consent",
    "cookie",
    "disqus",
    "gdpr",
    "newsletter",
    "popup",
    "related",
    "remark",
    "replies",
    "reviews",
    "sidebar",
];

/// Class or id words that keep an element a content candidate despite a chrome word.
pub(super) const CONTENT_WORDS: &[&str] =
    &["article", "body", "column", "content", "main", "mathjax", "post", "story", "entry", "text", "shadow"];

pub(super) const POSITIVE_WORDS: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "hentry",
    "h-entry",
    "main",
    "page",
    "pagination",
    "post",
    "text",
    "blog",
    "story",
    "prose",
    "markdown",
];

pub(super) const NEGATIVE_WORDS: &[&str] = &[
    "-ad-",
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "foot",
    "footer",
    "footnote",
    "gdpr",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "tool",
    "widget",
    "byline",
    "author",
    "dateline",
    "caption",
];

/// Class or id words of a post's author card or signature.
pub(super) const PROFILE_WORDS: &[&str] = &["user", "profile", "poster", "signature", "avatar", "author"];

/// Class or id words of tab and accordion panels (and, as a part of a name, "answer": an FAQ's
/// collapsed answers).
pub(super) const PANEL_WORDS: &[&str] = &["tab-pane", "tabpanel", "tab-content", "accordion", "collapse"];

pub(super) const CHROME_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "menu",
    "menubar",
    "search",
    "alert",
    "alertdialog",
    "dialog",
];

/// How the headings of related-content blocks begin (lower case, several languages).
pub(super) const RELATED_HEADINGS: &[&str] = &[
    "related",
    "you may also like",
    "you might also like",
    "you may like",
    "you might like",
    "more from",
    "more stories",
    "more news",
    "more articles",
    // Not "Recommended" alone: Invision forums head a thread's posts "Recommended Posts".
    "recommended for you",
    "recommended stories",
    "recommended articles",
    "recommended reading",
    "read next",
    "also read",
    "read also",
    "more great",
    "editor's picks",
    "editors' picks",
    "don't miss",
    "more on this",
    "other stories",
    "você pode gostar",
    "voce pode gostar",
    "leia também",
    "leia mais",
    "veja também",
    "notícias relacionadas",
    "lee también",
    "te puede interesar",
    "artículos relacionados",
    "noticias relacionadas",
    "à lire aussi",
    "a lire aussi",
    "sur le même sujet",
    "articles similaires",
    "lesen sie auch",
    "das könnte sie auch",
    "ähnliche artikel",
    "mehr zum thema",
    "leggi anche",
    "potrebbe interessarti",
    "関連記事",
];

/// What a photo credit starts with.
pub(super) const CREDIT_STARTS: &[&str] = &[
    "(image credit",
    "image credit",
    "(photo credit",
    "photo credit",
    "credit:",
    "credits:",
    "(credit:",
    "photo:",
    "(photo:",
    "photograph:",
    "photos:",
    "image:",
    "(image:",
    "picture:",
    "getty images",
    "(getty images",
];

/// Labels of page controls and ad slots that pages leave as text.
pub(super) const UI_LABELS: &[&str] = &[
    "advertisement",
    "advert",
    "ad",
    "ads",
    "sponsored",
    "like this",
    "like loading",
    "comments",
    "comment",
    "share",
    "share this",
    "share this article",
    "share this story",
    "subscribe",
    "trending",
    "highlights",
    "explore further",
    "print article",
    "order reprints",
    "text size",
    "related",
    "related articles",
    "related stories",
    "read more",
    "you may also like",
    "more",
    "previous next",
    "our standards",
    "breaking news emails",
    "tell us what you think",
    "story continues below advertisement",
    "continue reading below",
    "scroll to continue with content",
];

/// Class or id words of a post's date, author line and other metadata.
pub(super) const METADATA_WORDS: &[&str] = &[
    // "date" also covers datestamp, datetime, pubdate, post-date, updated…
    "byline",
    "dateline",
    "date",
    "timestamp",
    "publish",
    "posted",
    "entry-meta",
    "post-meta",
    "article-meta",
    "meta-info",
    "postmeta",
    "author",
];

/// Class words of overlays, which stay chrome even when other class names are ignored, and
/// however many of the page's paragraphs they hold.
pub(super) const OVERLAY_WORDS: &[&str] = &["cookie", "consent", "gdpr", "onetrust", "popup", "modal"];

pub(super) const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "dialog",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
    "summary",
    "tr",
    "td",
    "th",
    "tbody",
    "thead",
];

/// Query parameters that carry credentials; their values never leave the page.
pub(super) const CREDENTIAL_PARAMS: &[&str] = &[
    "token",
    "access_token",
    "id_token",
    "refresh_token",
    "auth",
    "authorization",
    "auth_token",
    "sig",
    "signature",
    "password",
    "passwd",
    "pwd",
    "pass",
    "session",
    "sessionid",
    "session_id",
    "sid",
    "jsessionid",
    "phpsessid",
    "api_key",
    "apikey",
    "key",
    "secret",
    "client_secret",
    "code",
    "otp",
    "x-amz-signature",
    "x-amz-credential",
    "x-amz-security-token",
    "credential",
    "credentials",
    "csrf",
    "csrftoken",
    "csrf_token",
    "_csrf",
    "csrfmiddlewaretoken",
    "xsrf",
    "_xsrf",
    "xsrf_token",
    "xsrf-token",
    "authenticity_token",
    "private_token",
    "access_key",
];

/// Class words of an answer block (Q&A pages collapse answers behind "Show answer"): shown text.
pub(super) const ANSWER_WORDS: &[&str] = &["answer"];

/// First words of a button label that offers to show more ("View product details", "Read more").
pub(super) const DISCLOSE_FIRST_WORDS: &[&str] = &["view", "show", "read", "see", "expand", "more", "details"];

/// The `blockquote` classes the embedding code of social networks gives a quoted post (Twitter/X,
/// Instagram, TikTok, Bluesky, Reddit embed snippets).
pub(super) const EMBEDDED_POST_CLASSES: &[&str] =
    &["twitter-tweet", "instagram-media", "tiktok-embed", "bluesky-embed", "reddit-embed"];

/// Class words of the customer reviews under a product: chrome however much prose they hold
/// (WCXB +2.4 page points).
pub(super) const REVIEW_WORDS: &[&str] = &["reviews"];

/// The last word of a "More … stories" heading ("More blog stories", "More world headlines").
pub(super) const STORY_WORDS: &[&str] = &["stories", "news", "articles", "posts", "headlines", "videos"];

/// Class words that keep a metadata-named block in the text ("post-meta-content").
pub(super) const METADATA_EXCEPT_WORDS: &[&str] = &["content", "body", "text"];

/// Class words of a photo or illustration credit line.
pub(super) const CREDIT_WORDS: &[&str] = &["credit"];

/// Label, name or id words of a one-time-code field (the Policy Gate never lets the model type
/// into one).
pub(super) const ONE_TIME_CODE_WORDS: &[&str] =
    &["one-time", "otp", "2fa", "two-factor", "totp", "verification code", "security code sent", "authenticator"];

/// Label, name or id words of a payment-card field.
pub(super) const PAYMENT_CARD_WORDS: &[&str] = &[
    "card number",
    "cardnumber",
    "card-number",
    "card_number",
    "ccnum",
    "cc-num",
    "cvc",
    "cvv",
    "csc",
    "security code",
    "expiry",
    "expiration",
    "exp-date",
    "iban",
    "routing number",
    "account number",
];

/// Label, name or id words of an e-mail field.
pub(super) const EMAIL_WORDS: &[&str] = &["email", "e-mail"];

/// Label, name or id words of a search field.
pub(super) const SEARCH_WORDS: &[&str] = &["search"];

/// Words a comment count stands beside ("12 comments", "3 replies").
pub(super) const COMMENT_COUNT_WORDS: &[&str] = &["comments", "comment", "replies", "reply", "answers", "responses"];

/// Class or id tokens that name one comment (Hacker News's "athing comtr", forums' "post-reply").
pub(super) const COMMENT_TOKENS: &[&str] =
    &["comment", "reply", "answer", "comtr", "athing comtr", "review", "message", "post-reply"];

/// What follows "comment-" or "reply-" in the token of a part of a comment, not a comment
/// ("comment-body", "reply-link").
pub(super) const COMMENT_PART_WORDS: &[&str] = &[
    "body",
    "content",
    "text",
    "meta",
    "header",
    "footer",
    "author",
    "actions",
    "form",
    "count",
    "list",
    "link",
    "date",
    "time",
    "vote",
    "avatar",
    "reply-link",
    "toggle",
    "score",
    "children",
    "replies",
    "tree",
    "section",
    "area",
    "widget",
    "respond",
    "policy",
    "rules",
    "sort",
    "nav",
    "pagination",
    "field",
    "input",
    "button",
    "icon",
    "permalink",
];

/// Stems of a one-comment token ("comment-123", "post_reply").
pub(super) const COMMENT_STEMS: &[&str] = &["comment", "reply"];

/// Class words of a comment's author (Hacker News's "hnuser").
pub(super) const COMMENT_AUTHOR_WORDS: &[&str] = &["author", "user", "hnuser", "commenter", "byline"];

/// Class words of a comment's age.
pub(super) const COMMENT_AGE_WORDS: &[&str] = &["age", "time", "date", "timestamp"];

/// Class words of a comment's score.
pub(super) const COMMENT_SCORE_WORDS: &[&str] = &["score", "points", "votes", "karma"];

/// Class words of a comment's body (Hacker News's "commtext").
pub(super) const COMMENT_BODY_WORDS: &[&str] = &["body", "content", "commtext", "comment-text", "text", "message"];

/// Class words of a modal overlay.
pub(super) const MODAL_WORDS: &[&str] = &["modal", "overlay", "lightbox"];

/// Class tokens that keep a block named as an overlay hidden until a script shows it: without
/// the page's style sheets (the CLI, a snapshot) it would read as shown. The Guardian's
/// `site-message-overlay … is-hidden` (readability's guardian-1); Bootstrap's `d-none`, `hide`
/// and `hidden`; Tailwind's `hidden`.
pub(super) const HIDDEN_STATE_CLASSES: &[&str] = &["hidden", "is-hidden", "hide", "d-none"];

/// A block a class names as an overlay covers the page only if it says this much: the "Play
/// Video" of a player's overlay button (guardian-1) hides nothing; a newsletter or sign-up
/// pitch is longer. (A `<dialog open>` or a dialog role counts whatever it says.)
pub(super) const OVERLAY_MIN_CHARS: usize = 40;

/// Elements that a class of [`MODAL_WORDS`] does not make an overlay: links, inline text and
/// pictures cover nothing. The Guardian's card headlines are `<a class="u-faux-block-link__overlay">`
/// (readability's guardian-1), CNET's play buttons SVG `<symbol id="playOverlay">` and its
/// thumbnails' captions `<span class="thumbnail-overlay">` (readability's cnet): all on the page
/// as it shows, none of them hiding it.
pub(super) const NEVER_OVERLAY_TAGS: &[&str] = &[
    "a", "abbr", "b", "button", "em", "i", "img", "label", "path", "picture", "small", "span", "strong", "svg",
    "symbol", "use",
];

/// Class words of a paywall (Piano's "piano-", metering's "meter-").
pub(super) const PAYWALL_WORDS: &[&str] =
    &["paywall", "piano-", "meter-", "subscriber-only", "premium-content", "regwall"];

/// Class words of a cookie-consent wall (OneTrust, Didomi, CMPs).
pub(super) const COOKIE_WALL_WORDS: &[&str] = &["cookie", "consent", "gdpr", "cmp-", "onetrust", "didomi"];

/// Class words of an age gate.
pub(super) const AGE_GATE_WORDS: &[&str] = &["age-gate", "agegate", "age-verification", "ageverify"];

/// Phrases of a paywall's message.
pub(super) const PAYWALL_PHRASES: &[&str] = &[
    "subscribe to continue reading",
    "subscribe to read",
    "to continue reading, subscribe",
    "this content is for subscribers",
    "become a subscriber to read",
    "subscribers only",
];

/// Phrases of a sign-in wall.
pub(super) const AUTH_GATE_PHRASES: &[&str] = &[
    "sign in to continue",
    "log in to continue",
    "please log in to",
    "please sign in to",
    "you must be logged in",
    "login required",
    "sign in to view",
];

/// Phrases of an age gate.
pub(super) const AGE_GATE_PHRASES: &[&str] = &[
    "are you 18",
    "are you over 18",
    "you must be 18",
    "you must be 21",
    "verify your age",
    "confirm your age",
    "enter your date of birth",
];

/// Phrases of a page blocked where the reader is.
pub(super) const GEO_BLOCK_PHRASES: &[&str] = &[
    "not available in your country",
    "not available in your region",
    "not available in your location",
    "unavailable in your region",
    "blocked in your country",
];

/// Phrases of a page that shows nothing without JavaScript.
pub(super) const SCRIPT_REQUIRED_PHRASES: &[&str] =
    &["you need to enable javascript", "please enable javascript", "javascript is required", "requires javascript"];

/// Phrases that ask the reader to sign in.
pub(super) const SIGN_IN_PHRASES: &[&str] = &["sign in", "log in", "login", "sign-in", "log-in"];

/// Metadata keys of the page's title, in Readability's order of preference (Dublin Core, Open
/// Graph, Weibo).
pub(super) const TITLE_META_KEYS: &[&str] =
    &["dc:title", "dcterm:title", "og:title", "weibo:article:title", "weibo:webpage:title"];

/// Metadata keys of the title when none of [`TITLE_META_KEYS`] is there.
pub(super) const TITLE_META_FALLBACK_KEYS: &[&str] = &["twitter:title", "parsely-title"];

/// Further metadata keys a page's other titles come from.
pub(super) const OTHER_TITLE_META_KEYS: &[&str] = &["dc:title", "dcterm:title", "weibo:article:title", "parsely-title"];

/// The schema.org types of an article, whose JSON-LD `headline` is the page's title.
pub(super) const JSON_LD_ARTICLE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Report",
    "ScholarlyArticle",
    "TechArticle",
    "AdvertiserContentArticle",
    "AnalysisNewsArticle",
    "BackgroundNewsArticle",
    "OpinionNewsArticle",
    "ReportageNewsArticle",
    "ReviewNewsArticle",
    "SatiricalArticle",
    "SocialMediaPosting",
    "LiveBlogPosting",
    "DiscussionForumPosting",
    "MedicalScholarlyArticle",
];

// ---------------------------------------------------------------------------------------------
// Thresholds. Character counts are of collapsed text; a link density is the share of an
// element's text inside links. Those marked Readability.js are its values (`_initializeNode`,
// `_grabArticle`, `_getArticleTitle`, `DEFAULT_CHAR_THRESHOLD`); the others were set on the
// WCXB and Zyte dev pages with `cargo xtask bench extraction`, as the comment at each use says.

/// A part of a whole: `part * den` against `whole * num`, in integers as the rules always were.
#[derive(Clone, Copy)]
pub(super) struct Share {
    pub(super) num: usize,
    pub(super) den: usize,
}

impl Share {
    /// `part` is at least this share of `whole`.
    pub(super) fn reached(self, part: usize, whole: usize) -> bool {
        part * self.den >= whole * self.num
    }
}

/// With this much visible text a page is not one that hides itself in `<noscript>`.
pub(super) const NOSCRIPT_VISIBLE_ENOUGH: usize = 1_500;
/// `<noscript>` is read instead when it holds more than twice the visible text (and at least
/// twice this).
pub(super) const NOSCRIPT_MIN_VISIBLE: usize = 500;
/// A button label longer than this is no "Read more" toggle.
pub(super) const DISCLOSE_LABEL_MAX_CHARS: usize = 40;
/// A chrome-named element is the page when the page has this much paragraph text…
pub(super) const CHROME_AS_CONTENT_PAGE_PARAGRAPHS: usize = 200;
/// …and it holds this share of it…
pub(super) const CHROME_AS_CONTENT_SHARE: Share = Share { num: 2, den: 5 };
/// …with less than this link density (WCXB +6.8 page points).
pub(super) const CHROME_AS_CONTENT_MAX_LINK_DENSITY: f64 = 0.5;
/// A box only named like chrome that holds this much paragraph text…
pub(super) const NAMED_CHROME_TEXT_CHARS: usize = 500;
/// …with fewer links than this density is text.
pub(super) const NAMED_CHROME_MAX_LINK_DENSITY: f64 = 0.15;
/// Chrome by tag or role is the page only when it holds this share of the page's paragraphs
/// (a related-stories aside beside a short article holds 40 % or more).
pub(super) const CHROME_BY_TAG_CONTENT_SHARE: Share = Share { num: 3, den: 5 };
/// An embedded post's wrapper holds at most twice its text and this many characters more.
pub(super) const EMBED_WRAPPER_EXTRA_CHARS: usize = 100;
/// A class is a page builder's when it wraps this many blocks…
pub(super) const BUILDER_CLASS_MIN_COUNT: usize = 3;
/// …holding this share of the page's text.
pub(super) const BUILDER_CLASS_TEXT_SHARE: Share = Share { num: 1, den: 2 };
/// Readability.js: a negative class word takes this much off a candidate's score, a positive
/// one adds it.
pub(super) const CLASS_WEIGHT: f64 = 25.0;
/// A dateline or byline block is shorter than this.
pub(super) const METADATA_BLOCK_MAX_CHARS: usize = 150;
/// Only a kind of metadata block (tag and class) that occurs at most this often is dropped: each
/// post of a thread keeps its own date.
pub(super) const METADATA_KIND_MAX_COUNT: usize = 2;
/// A page of cards: a content root this link-dense…
pub(super) const CARD_PAGE_MIN_LINK_DENSITY: f64 = 0.4;
/// …with less prose than this.
pub(super) const CARD_PAGE_MAX_PROSE_CHARS: usize = 1_000;
/// An entry of a list has at least this much text beside its links…
pub(super) const ENTRY_OWN_TEXT_CHARS: usize = 30;
/// …and is one of at least this many blocks of its kind (and a list holds that many entries).
pub(super) const ENTRY_MIN_KIND_COUNT: usize = 4;
/// A tag list has little besides its `rel="tag"` links: at most this many characters and two a
/// link (commas, a "Tags" label).
pub(super) const TAG_LIST_EXTRA_CHARS: usize = 40;
/// A photo credit or a control's label is at most this long.
pub(super) const LABEL_BLOCK_MAX_CHARS: usize = 120;
/// A block with this many commas is prose.
pub(super) const PROSE_MIN_COMMAS: usize = 10;
/// A poster's card or signature is shorter than this.
pub(super) const PROFILE_BLOCK_MAX_CHARS: usize = 300;
/// A link list: a class weight below [`CLASS_WEIGHT`] and a link density above this…
pub(super) const LINK_LIST_DENSITY: f64 = 0.5;
/// …or a link density above this whatever its class says.
pub(super) const LINK_LIST_DENSITY_ANY_CLASS: f64 = 0.75;
/// A linked span is a sentence's words when its block's link density is at most this.
pub(super) const SENTENCE_LINK_DENSITY: f64 = 0.5;
/// Repeated blocks shorter than this are not dropped (a recipe's "1 tsp. oil" every day).
pub(super) const REPEATED_BLOCK_MIN_CHARS: usize = 200;
/// A related-stories label is longer than this only as an `<h1>`, which is the page's title.
pub(super) const RELATED_LABEL_MAX_CHARS: usize = 60;
/// A related-stories label that is not a heading may be this much longer than its phrase.
pub(super) const RELATED_LABEL_EXTRA_CHARS: usize = 25;
/// "More … stories": at most this many words.
pub(super) const MORE_STORIES_MAX_WORDS: usize = 4;
/// A control's label ("Share", "Like this:") is at most this long.
pub(super) const UI_LABEL_MAX_CHARS: usize = 40;
/// Readability.js: a paragraph shorter than this is not scored.
pub(super) const PARAGRAPH_MIN_CHARS: usize = 25;
/// The closing sign-up pitch is looked for in this many last lines…
pub(super) const PITCH_LINES: usize = 3;
/// …when the rest of the content has at least this many words to compare with…
pub(super) const PITCH_REST_MIN_WORDS: usize = 50;
/// …and a pitch line is shorter than this.
pub(super) const PITCH_MAX_CHARS: usize = 400;
/// Readability.js's `DEFAULT_CHAR_THRESHOLD`: a reading with less text is retried with fewer
/// rules.
pub(super) const ENOUGH_TEXT_CHARS: usize = 500;
/// Widening: on a page with this much paragraph text…
pub(super) const WIDEN_PAGE_PARAGRAPHS: usize = 500;
/// …content holding less than this share of its paragraphs is spread over several containers
/// (measured against a half: WCXB +2.8 page points)…
pub(super) const WIDEN_PARAGRAPH_SHARE: Share = Share { num: 2, den: 3 };
/// …and the content is the lowest ancestor holding this share of them.
pub(super) const WIDEN_TO_PARAGRAPH_SHARE: Share = Share { num: 4, den: 5 };
/// Inside `<main>`, content holding less than this share of main's text outside links is the
/// main (measured against a third and two thirds: WCXB +1.3 and +1.1 page points, a half +1.9).
pub(super) const MAIN_TEXT_SHARE: Share = Share { num: 1, den: 2 };
/// Content holding this share of the page's non-chrome text is not widened.
pub(super) const ENOUGH_TEXT_SHARE: Share = Share { num: 1, den: 4 };
/// An article (this much prose, or a run of loose text this long)…
pub(super) const ARTICLE_PROSE_CHARS: usize = 300;
/// …is widened to the lowest ancestor holding this share of the page's non-chrome text.
pub(super) const WIDEN_TO_TEXT_SHARE: Share = Share { num: 3, den: 5 };
/// A declared `<article>` is the content when it holds this share of what was found.
pub(super) const DECLARED_ARTICLE_SHARE: Share = Share { num: 1, den: 2 };
/// An `itemprop="articleBody"` element counts with this much visible text.
pub(super) const ARTICLE_BODY_MIN_CHARS: usize = 200;
/// A page's own paragraph: this long (not the 80 of a news paragraph: landing and product pages
/// write short sections)…
pub(super) const OWN_PARAGRAPH_MIN_CHARS: usize = 40;
/// …with a link density under this.
pub(super) const OWN_PARAGRAPH_MAX_LINK_DENSITY: f64 = 0.3;
/// A teaser's heading is a link: link density above this.
pub(super) const TEASER_HEADING_LINK_DENSITY: f64 = 0.5;
/// A teaser is found this many ancestors up from its linked heading…
pub(super) const TEASER_MAX_LEVELS: usize = 4;
/// …in a block shorter than this.
pub(super) const TEASER_MAX_CHARS: usize = 1_500;
/// An excerpt's entry is found this many ancestors up…
pub(super) const EXCERPT_MAX_LEVELS: usize = 3;
/// …with at least this much link text…
pub(super) const EXCERPT_MIN_LINK_CHARS: usize = 10;
/// …in a block shorter than this…
pub(super) const EXCERPT_MAX_CHARS: usize = 600;
/// …and one of at least this many such entries under one parent.
pub(super) const EXCERPT_MIN_ENTRIES: usize = 3;
/// Prose: `<p>` of this many characters…
pub(super) const PROSE_PARAGRAPH_MIN_CHARS: usize = 80;
/// …with a link density under this.
pub(super) const PROSE_MAX_LINK_DENSITY: f64 = 0.3;
/// Repeated items: siblings of the same tag and class, each this long…
pub(super) const REPEATED_ITEM_MIN_CHARS: usize = 25;
/// …at least this many…
pub(super) const REPEATED_ITEMS_MIN_COUNT: usize = 3;
/// …holding this share of the primary's text together.
pub(super) const REPEATED_ITEMS_TEXT_SHARE: Share = Share { num: 3, den: 2 };
/// Readability.js's `_initializeNode`: a candidate's starting score by its tag (others 0).
pub(super) const TAG_SCORES: &[(&[&str], f64)] = &[
    (&["div", "article", "main", "section"], 5.0),
    (&["pre", "td", "blockquote"], 3.0),
    (&["address", "ol", "ul", "dl", "dd", "dt", "li", "form"], -3.0),
    (&["h1", "h2", "h3", "h4", "h5", "h6", "th"], -5.0),
];
/// Readability.js: a paragraph scores a point per comma and one per this many characters…
pub(super) const SCORE_CHARS_PER_POINT: usize = 100;
/// …at most this many for its length…
pub(super) const SCORE_MAX_LENGTH_POINTS: usize = 3;
/// …to this many ancestors, the third and later divided by three times their level.
pub(super) const SCORE_ANCESTOR_LEVELS: usize = 5;
/// Readability.js's alternative-ancestor step: candidates scoring at least this share of the
/// top one…
pub(super) const ALTERNATIVE_SCORE_SHARE: f64 = 0.75;
/// …when at least this many of them share an ancestor (Readability.js's
/// `MINIMUM_TOPCANDIDATES` is 3, the top one included).
pub(super) const ALTERNATIVE_MIN_COUNT: usize = 2;
/// The top candidate climbs to a parent whose text is at least this much its own.
pub(super) const CLIMB_TEXT_SHARE: f64 = 0.9;
/// Readability.js: a sibling joins the content when it scores this share of the top score…
pub(super) const SIBLING_SCORE_SHARE: f64 = 0.2;
/// …and at least this much…
pub(super) const SIBLING_MIN_SCORE: f64 = 10.0;
/// …with the same share again as a bonus when it has the top candidate's class; a sibling
/// `<p>` joins with more than this many characters…
pub(super) const SIBLING_PARAGRAPH_CHARS: usize = 80;
/// …and a link density under this (or no links and a closing full stop).
pub(super) const SIBLING_PARAGRAPH_LINK_DENSITY: f64 = 0.25;
/// A sibling that is half or more excerpts of other pages does not join.
pub(super) const SIBLING_EXCERPT_SHARE: Share = Share { num: 1, den: 2 };
/// A listing: a parent with at least this many children of one shape…
pub(super) const LIST_MIN_ITEMS: usize = 3;
/// …each carrying a link of at least this many characters.
pub(super) const LIST_ITEM_LINK_CHARS: usize = 12;
/// A comment has at least this much text.
pub(super) const COMMENT_MIN_CHARS: usize = 20;
/// The discussions listed of a listing page: the most commented, this many.
pub(super) const TOP_DISCUSSIONS: usize = 5;
/// A cookie wall says so in more than this many characters.
pub(super) const COOKIE_WALL_MIN_CHARS: usize = 20;
/// A `<noscript>` warning means the page needs scripts when it shows less than this.
pub(super) const SCRIPT_REQUIRED_VISIBLE_CHARS: usize = 400;
/// Sign-in fields and words mean a sign-in wall when the content is shorter than this.
pub(super) const AUTH_GATE_MAX_TEXT_CHARS: usize = 200;
/// Readability.js's `_getArticleTitle`: a title cut at a separator keeps at least this many
/// words, else it is cut at the first one…
pub(super) const TITLE_MIN_WORDS: usize = 3;
/// …a title before a colon longer than this many words is kept whole…
pub(super) const TITLE_PREFIX_MAX_WORDS: usize = 5;
/// …a document title longer than this or shorter than [`TITLE_MIN_CHARS`] gives way to the
/// page's only `<h1>`…
pub(super) const TITLE_MAX_CHARS: usize = 150;
pub(super) const TITLE_MIN_CHARS: usize = 15;
/// …and a cleaned title of this many words or fewer is not used.
pub(super) const TITLE_TOO_FEW_WORDS: usize = 4;
/// The content's first line is the title repeated (and left out) when it is at most this long
/// and at least half the title.
pub(super) const REPEATED_TITLE_MAX_CHARS: usize = 200;
/// Content hidden by inline style is read too when the visible page gives less than this…
pub(super) const STYLED_AWAY_RETRY_BELOW: usize = 1_000;
/// …and kept when it gives at least this much…
pub(super) const STYLED_AWAY_MIN_CHARS: usize = 500;
/// …and the visible page gave less than this, or a third of what it gives.
pub(super) const STYLED_AWAY_SHOWN_FEW: usize = 200;
/// A disclosure toggle or a heading is looked for this many levels into a button; its label this
/// many plus one.
pub(super) const BUTTON_SEARCH_DEPTH: usize = 2;

// ---------------------------------------------------------------------------------------------
// How the lists are matched.

pub(super) fn has_word(haystack: &str, words: &[&str]) -> bool {
    words.iter().any(|w| haystack.contains(w))
}

/// Whether a class or id names one of `words` as a whole part (`faq__answer`, `cookie-banner`,
/// `onetrust-consent-sdk`), not inside a longer word (`unanswered`) nor as a taxonomy term of
/// the page (`category-cookies`, `tag-reviews`, `node--type-reviews`).
pub(super) fn names_part(class_id: &str, words: &[&str]) -> bool {
    class_id.split_whitespace().any(|token| {
        let taxonomy = token.starts_with("category-") || token.starts_with("tag-") || token.contains("type-");
        !taxonomy && token.split(['-', '_']).any(|part| words.contains(&part))
    })
}

pub(super) fn is_heading_tag(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// A utility class of a CSS framework (Tailwind's `md:hidden`, `overflow-hidden`,
/// `bg-[url(...)]`): it styles a box and says nothing of what the box holds, so a chrome word
/// inside it ("hidden", "media", "scroll") is no sign of chrome.
pub(super) fn is_utility_class(token: &str) -> bool {
    token.contains(':') || token.contains('[') || token.starts_with("overflow-")
}

/// Attributes with which pages and frameworks wire a click to an element that is no control by
/// its tag or role (inline handlers; Google's jsaction; Angular's ng-click; Vue's @click kept
/// in server-rendered markup): such an element is a control the user can click (issue #56).
pub(super) const SCRIPT_CLICK_ATTRIBUTES: &[&str] = &["onclick", "jsaction", "ng-click", "data-ng-click", "v-on:click"];

/// Tags a script-wired control is drawn with (a clickable `<span>`, a tree node, an icon, a
/// calendar cell); the live DOM's pointer cursor is asked of these only, since computed style
/// costs a call per element.
pub(super) const SCRIPT_CONTROL_TAGS: &[&str] = &[
    "span", "div", "li", "td", "th", "img", "svg", "i", "p", "label", "h1", "h2", "h3", "h4", "h5", "h6", "em", "b",
    "strong", "tr",
];

/// Longest caption of a script-wired control: longer text is a block of content that happens to
/// be clickable (a whole card), not a control.
pub(super) const SCRIPT_CONTROL_MAX_CHARS: usize = 80;

/// Longest caption written as text before a field ("Date: <input>") that labels it.
pub(super) const LABEL_TEXT_MAX_CHARS: usize = 40;
