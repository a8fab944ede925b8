//! The text rules of definition scanning, as regular expressions per rule
//! id (the character rules are in `chars`). Each expression is written for
//! a way of steering a model, not for one sample: a verb class, a gap of a
//! few words within one sentence (`[^.\n]{0,N}`), an object class. Their
//! false positives are measured on published servers' real definitions (see
//! the measurement in `scan.rs`'s tests and `docs/security.md`).

use crate::sandbox::policy::SECRET_PLACES;

/// The rule id of references to credential files.
pub(super) const CREDENTIAL_FILE: &str = "credential-file";

/// Who a hidden instruction is addressed to.
const MODEL: &str = r"(ai|assistant|model|llm|agent|claude|gpt|chatgpt|copilot|gemini|chatbot|bot)";
/// Asking a person first.
const CONSENT: &str = r"(permission|confirmation|approval|consent|authori[sz]ation)";
/// What the session holds that no tool needs passed to it.
const SESSION: &str = r"(conversation|chat history|message history|(previous|prior|last|earlier|other) messages|system prompt|system message)";
/// Secrets of the machine, as a whole (after "all", "the user's", ...).
const SECRETS: &str = r"(environment\s+variables|env\s+vars|api[ _-]?keys|private\s+keys?|ssh\s+keys?|passwords|credentials|secrets|(browser\s+|session\s+)?cookies|access\s+tokens|auth\s+tokens)";

/// Every text rule: its id and its expressions (case-insensitive unless
/// they say otherwise). Benign texts they were narrowed against: "IMPORTANT:"
/// notes, "## Instructions" headings, "only after the user has explicitly
/// confirmed", "never without asking for permission", "add environment
/// variables to the container", "pass the file's contents as a string",
/// "send a request to the URL", "all data will be lost", "developer mode",
/// "bypass safety checks", "do not mention users", "run quietly", Django
/// lookups (`title__contains`), "defaults to ~/.kube/config".
pub(super) const RULES: &[(&str, &[&str])] = &[
    (
        "instruction-tag",
        &[
            r"(?i)<\s*/?\s*(important|system|sys|instructions?|admin|secret|hidden|critical|mandatory|override|assistant|system[_-]?prompt|directive)(\s[^<>]{0,40})?\s*>",
            r"(?i)\[\s*/?\s*(inst|sys|system)\s*\]",
            r"(?i)<<\s*/?\s*sys\s*>>",
            r"<\|\s*(im_start|im_end|system|assistant|user|endoftext)\s*\|>",
            r"#{2,}\s*(SYSTEM|INSTRUCTIONS?|ASSISTANT)\s*:",
            r"(?i)\b(system|admin|developer)\s+(override|message|notice|instruction)\s*:",
        ],
    ),
    (
        "override-instructions",
        &[
            r"(?i)\b(ignore|disregard|forget|override|discard|abandon)\b[^.\n]{0,40}?\b(previous|prior|preceding|above|earlier|former|original|initial|all|your|system)\b[^.\n]{0,30}?\b(instructions?|prompts?|guidelines|directives|guardrails)\b",
            r"(?i)\bforget\s+(everything|all|what)\b[^.\n]{0,20}\b(you|you've|you\s+have|you\s+were|told|said)\b",
            r"(?i)\b(new|updated|real|actual|true|revised|secret)\s+(system\s+)?instructions?\s*:",
            r"(?i)\byou\s+are\s+now\s+(in|a|an|the|my|no\s+longer)\b",
            r"(?i)\b(god|jailbreak|unrestricted|dan)\s+mode\b",
            r"(?i)\b(takes?\s+precedence\s+over|supersedes?)\b[^.\n]{0,20}\b(other|previous|prior|your|system|user'?s?)\b",
            r"(?i)\bfrom\s+now\s+on\b[^.\n]{0,20}\byou\b",
        ],
    ),
    (
        "conceal-from-user",
        &[
            r"(?i)\b(do\s+not|don't|dont|never|must\s+not|mustn't|should\s+not|shouldn't|without)\s+(ever\s+)?(tell|telling|inform|informing|reveal|revealing|disclose|disclosing)\b[^.\n]{0,60}?\b(user|users|human|person|operator|owner)\b",
            r"(?i)\b(do\s+not|don't|dont|never|must\s+not|without)\s+(ever\s+)?(mention|mentioning)\s+(this|that|it|anything)\b[^.\n]{0,40}\b(to|with)\s+(the\s+)?(user|human|person)\b",
            r"(?i)\b(do\s+not|don't|dont|never|without)\s+(let|letting)\s+(the\s+)?(user|users|human)\s+know\b",
            r"(?i)\b(user|users|human|person)\s+(must|should|shall|needs?\s+to|will|may)\s+(never|not)\s+(know|notice|find\s+out|be\s+told|be\s+informed|learn|realize|suspect)\b",
            r"(?i)\b(keep|hide|conceal)\b[^.\n]{0,30}\bfrom\s+(the\s+)?(user|human|person|operator)\b",
            r"(?i)\b(secretly|covertly|surreptitiously|stealthily|behind\s+the\s+user'?s\s+back)\b",
            r"(?i)\b(silently|quietly|discreetly)\s+(send|read|copy|upload|forward|include|add|call|run|execute|delete|post|collect|attach)\b",
            r"(?i)\b(upset|alarm|worry|scare|frighten)\s+the\s+user\b",
            r"(?i)\b(mere|just\s+an?|only\s+an?)\s+implementation\s+detail\b",
            r"(?i)\b(user|users|human)\b[^.\n]{0,20}\b(cannot|can't|can\s+not|won't|will\s+not|does\s+not|doesn't)\s+(see|read|notice)\s+(this|these)\b",
        ],
    ),
    (
        "claimed-approval",
        &[
            r"(?i)\b(user|owner|admin|administrator|operator)\b[^.\n]{0,30}?\b(already|previously|explicitly|expressly)\s+(approved|authori[sz]ed|consented|confirmed|agreed|granted|permitted|allowed|accepted)\b",
            r"(?i)\b(already|previously|explicitly)\s+(been\s+)?(approved|authori[sz]ed|consented\s+to|confirmed|permitted|allowed)\s+by\s+(the\s+)?(user|owner|admin|administrator|operator)\b",
            r"(?i)\b(user|owner|admin|administrator|operator)\b[^.\n]{0,30}?\bpre-?(approved|authori[sz]ed|consented|cleared)\b",
            r"(?i)\b(is|are)\s+(already\s+)?pre-?(approved|authori[sz]ed|cleared)\b[^.\n]{0,40}\b(do\s+not|don't|no\s+need|without|never)\b",
            r"(?i)\b(no\s+need|not\s+necessary|unnecessary|don't\s+need|do\s+not\s+need|needn't)\b[^.\n]{0,20}\b(ask|request|seek|get|obtain|wait\s+for)\b[^.\n]{0,25}\bPLACEHOLDER_CONSENT",
            r"(?i)\bwithout\s+(asking|requesting|seeking|waiting\s+for|getting|obtaining)\b[^.\n]{0,25}\bPLACEHOLDER_CONSENT",
            r"(?i)\b(do\s+not|don't|never)\s+(ask|request|seek|wait)\b[^.\n]{0,25}\bPLACEHOLDER_CONSENT",
            r"(?i)\bPLACEHOLDER_CONSENT\s+(is|has\s+been|was)\s+(already\s+)?(granted|given|obtained|implied)\b",
        ],
    ),
    (
        "model-directed",
        &[
            r"(?i)\b(note|message|instructions?|reminder|memo|rules?|directive|guidance)\s+(to|for)\s+(the\s+|any\s+)?PLACEHOLDER_MODEL\b",
            r"(?i)\b(ai|assistant|llm|claude|gpt|chatgpt|copilot|gemini|chatbot)\s*[:,]\s*(please|you\s+must|you\s+should|always|never|do\s+not|don't)\b",
            r"(?i)\b(dear|hey|attention)\s*,?\s+PLACEHOLDER_MODEL\b",
            r"(?i)\bas\s+an?\s+(ai|language\s+model|llm|assistant)\b[^.\n]{0,20}\byou\b",
            r"(?i)\bbefore\s+(using|calling|invoking|running|executing)\s+(this|the|any)\b[^.\n]{0,40}?\b(send|upload|include|pass|collect|gather|attach|exfiltrate)\b",
            r"(?i)\b(otherwise|or\s+else)\b[^.\n]{0,40}\b(will|would)\s+(crash|be\s+blocked|stop\s+working)\b",
            r"(?i)\b(very\s+){2,}important\b",
        ],
    ),
    (
        "other-tools",
        &[
            r"(?i)\bwhen(ever)?\s+this\s+tool\s+is\s+(available|present|installed|loaded|enabled|active|listed|connected)\b",
            r"(?i)\bside[- ]effects?\s+on\b[^.\n]{0,40}\b(tools?|servers?|functions?)\b",
            r"(?i)\b(affects?|changes?|modif(y|ies)|overrides?|alters?|hijacks?)\b[^.\n]{0,20}\b(behaviou?r|workings?|operation)\s+of\s+(the\s+|all\s+|any\s+)?(other|another|[\w-]+\s+(tools?|servers?))\b",
            r"(?i)\b(when|whenever|every\s+time|each\s+time)\b[^.\n]{0,50}?\b((any|every|all)\s+other|another)\s+(tools?|servers?|functions?)\b",
            r"(?i)\b(other|another)\s+(mcp\s+)?(servers?|plugins?|extensions?)\b",
            r"(?i)\b(any|every|all)\s+other\s+tools?\b",
            r"(?i)\bthe\s+[\w-]+\s+server'?s\s+([\w-]+\s+)?tools?\b",
            r"(?i)\bwhen(ever)?\s+(\([\w-]+\)\s+)?`?[\w-]*_[\w-]+`?\s+(tool\s+)?is\s+(invoked|called|used|run|executed),?\s+(make\s+sure|always|you\s+must|change|replace|redirect|also|first|instead)\b",
            r"(?i)\b(replaces?|supersedes?|shadows?|preferred\s+over)\s+(the\s+)?`?[\w-]*_[\w-]+`?\s+(tool\s+)?(from|of|in|provided\s+by)\s+(the\s+)?[\w-]+\s+server\b",
            r"(?i)\b(replaces?|supersedes?|shadows?|preferred\s+over)\b[^.\n]{0,20}\b(built-?in|native)\s+([\w-]+\s+)?tools\b",
            r"\bmcp__[\w-]+__\w+",
            r"\b[a-z0-9]+(?:-[a-z0-9]+)*__(create|delete|send|read|write|get|list|update|run|execute|search|fetch|post|push|call|add|remove)_[a-z0-9_]+\b",
        ],
    ),
    (
        "exfiltration",
        &[
            r"(?i)\b(webhook\.site|requestbin\.\w+|pipedream\.net|ngrok(-free)?\.(io|app|dev)|burpcollaborator\.net|oast\.(fun|me|site|pro|online|live)|interact\.sh|canarytokens\.(com|org)|pastebin\.com|transfer\.sh|hookbin\.com|beeceptor\.com|requestcatcher\.com|webhook\.cool|ptsv2\.com|trycloudflare\.com|serveo\.net|localtunnel\.me|loca\.lt|0x0\.st|termbin\.com)\b",
            r"(?i)\b(send|forward|bcc|cc|copy|redirect|deliver)\b[^.\n]{0,20}\b(all|every|each|a\s+copy|copies)\b[^.\n]{0,40}?\bto\s+[\w.+-]+@[\w-]+(\.[\w-]+)+",
            r"(?i)\b(change|set|replace|redirect|switch)\b[^.\n]{0,30}\b(recipient|destination|receiver|phone\s+number|iban|wallet|payee)\b[^.\n]{0,20}\bto\s+[+\d]",
            r"(?i)\b(bcc|cc)\b[^.\n]{0,20}\b(a\s+copy|copies|all|every)\b[^.\n]{0,30}\bto\s+[\w.+-]+@",
            r"(?i)\b(pass|put|send|include|append|add|attach|embed|insert|copy|post|upload|leak|encode|place|paste|fill|forward|provide|email|mail)\b[^.\n]{0,40}?\bPLACEHOLDER_SESSION\b",
            r"(?i)\b(pass|put|send|include|append|add|attach|embed|insert|copy|post|upload|leak|encode|paste|fill|forward|provide)\b[^.\n]{0,40}?\b(all|every|the\s+user'?s|your|their)\s+PLACEHOLDER_SECRETS\b",
            r"(?i)\b(pass|put|include|append|embed|insert|fill|provide|attach)\b[^.\n]{0,20}\b(its|their)\s+(content|contents)\s+(as|in|into)\b",
            r"(?i)\b(upload|post|send|exfiltrate|leak|transmit|forward)\b[^.\n]{0,50}?\bto\s+(https?|ftp)://\d{1,3}(\.\d{1,3}){3}\b",
            r"(?i)\b(push|mirror|sync|copy|backup|back\s+up)\b[^.\n]{0,40}?\b(repo(sitory)?|code|files?|workspace|project)\b[^.\n]{0,30}?\bto\s+(git@|https?://|ssh://)\S+",
        ],
    ),
    (
        "dangerous-command",
        &[
            r"(?i)\b(curl|wget|iwr|invoke-webrequest)\b[^|\n]{0,160}\|\s*(sudo\s+)?(ba|z|da|k)?sh\b",
            r"(?i)\bbase64\s+(-d|--decode)\b[^|\n]{0,60}\|\s*(sudo\s+)?(ba|z)?sh\b",
            r"(?i)\bchmod\s+(-R\s+)?[0-7]{3,4}\s+(~|\$HOME|/\s)",
            r"(?i)\bchmod\s+-R\b[^;\n]{0,20}(~|\$HOME)",
            r"(?i)\brm\s+-[rf]{1,2}\w*\s+(~|/\s|/\*|\$HOME|--no-preserve-root)",
            r"(?i)\b(nc|ncat|netcat)\s+-[ec]\b",
            r"/dev/tcp/",
        ],
    ),
    (
        "hidden-text",
        &[
            r"(?s)<!--.{0,2000}?[A-Za-z]{3}.{0,2000}?-->",
            r"(\r?\n[ \t]*){12,}\S",
        ],
    ),
];

/// Rules whose findings count only beside a finding of another rule: text addressed to the
/// model is how steering starts, and how honest servers give usage notes.
pub(super) fn weak(rule: &str) -> bool {
    rule == "model-directed"
}

/// Rules whose matches do not count in a sentence that states them as a
/// condition (see [`conditional`]).
pub(super) fn guarded(rule: &str) -> bool {
    rule == "claimed-approval"
}

/// Whether the sentence before a match (up to 60 characters back, to the
/// last `.`, `;`, `!`, `?` or line break) makes it a condition or a
/// prohibition: "only after the user has explicitly approved", "never ...
/// without asking for permission".
pub(super) fn conditional(before: &str) -> bool {
    static WORDS: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\b(only|after|once|unless|until|if|when|whenever|before|never|not|don't|cannot|must|should|requires?|required|ensure|make\s+sure|confirm|verify)\b",
        )
        .ok()
    });
    let start = before
        .char_indices()
        .rev()
        .take(60)
        .find(|(_, c)| matches!(c, '.' | ';' | '!' | '?' | '\n'))
        .map_or_else(
            || before.char_indices().rev().nth(59).map_or(0, |(i, _)| i),
            |(i, c)| i + c.len_utf8(),
        );
    WORDS.as_ref().is_some_and(|w| w.is_match(&before[start..]))
}

/// Every rule's expressions as `(id, expression)`, the credential files
/// built from the sandbox's table of secret places.
pub(super) fn patterns() -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = RULES
        .iter()
        .flat_map(|(id, patterns)| {
            patterns.iter().map(move |p| {
                let p = p
                    .replace("PLACEHOLDER_CONSENT", CONSENT)
                    .replace("PLACEHOLDER_MODEL", MODEL)
                    .replace("PLACEHOLDER_SESSION", SESSION)
                    .replace("PLACEHOLDER_SECRETS", SECRETS);
                (*id, p)
            })
        })
        .collect();
    out.extend(
        credential_patterns()
            .into_iter()
            .map(|p| (CREDENTIAL_FILE, p)),
    );
    // ASCII word boundaries: a Unicode `\b` keeps the regex engine off its
    // fast (DFA) path on non-ASCII text; the words matched here are ASCII.
    // A gap "within one sentence" may hold a dot that ends no sentence (a
    // path, a file name): `~/.ssh/id_rsa and pass`.
    for (_, pattern) in &mut out {
        *pattern = pattern
            .replace(r"\b", r"(?-u:\b)")
            .replace(r"[^.\n]{", r"(?:[^.\n]|\.[^\s.]){");
    }
    out
}

/// Before a path: the start, a space, a quote, `~`, `/`, `\`, `=`, `:`.
const PATH_START: &str = r#"(^|[\s"'`(=:~/\\])"#;
/// After a path: the end, a space, a quote, a separator or punctuation.
const PATH_END: &str = r#"($|[\s"'`)/\\.,;:|])"#;

/// Places of the sandbox's table that tools of their own kind name as
/// where they read their configuration ("defaults to ~/.kube/config"): a
/// mention counts only next to a verb that moves data.
const CONFIG_PLACES: &[&str] = &[
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
];

/// Moving data somewhere: what turns naming a config place into a finding.
const MOVE: &str = r"(send|pass|include|upload|attach|post|forward|embed|put|append|exfiltrate|leak|paste|cat|copy|base64|read\s+and\s+(send|pass|include))";

/// The credential-file expressions: every secret place of the sandbox's
/// table (any system: a definition may name another system's places), and
/// well-known credential files.
pub(super) fn credential_patterns() -> Vec<String> {
    let as_regex = |path: &str| {
        path.split('/')
            .map(regex::escape)
            .collect::<Vec<_>>()
            .join(r"[/\\]")
    };
    let (config, keys): (Vec<_>, Vec<_>) = SECRET_PLACES
        .iter()
        .map(|place| place.path)
        .partition(|path| CONFIG_PLACES.contains(path));
    let keys: Vec<String> = keys.into_iter().map(as_regex).collect();
    let config: Vec<String> = config.into_iter().map(as_regex).collect();
    let config = config.join("|");
    vec![
        format!("(?i){PATH_START}({}){PATH_END}", keys.join("|")),
        format!(r"(?i)\b{MOVE}\b[^.\n]{{0,40}}?{PATH_START}({config}){PATH_END}"),
        format!(r"(?i){PATH_START}({config}){PATH_END}[^.\n]{{0,40}}?\b(and|then)\s+{MOVE}\b"),
        format!(
            r"(?i){PATH_START}\.(netrc|npmrc|pypirc|pgpass|git-credentials|bash_history|zsh_history|htpasswd|vault-token|terraformrc|s3cfg|boto|cursor[/\\]mcp\.json){PATH_END}"
        ),
        r"(?i)\bid[_ ](rsa|dsa|ecdsa|ed25519)\b".to_string(),
        r"(?i)(/etc/(shadow|passwd|sudoers|master\.passwd)|\bclaude_desktop_config\.json|\bmcp\.json\b|\bwallet\.dat\b)".to_string(),
        r"(?i)([~/]\.env\b|\b(read|contents?\s+of|send|upload|include|cat|open|copy)\b[^.\n]{0,30}\.env\b)".to_string(),
    ]
}
