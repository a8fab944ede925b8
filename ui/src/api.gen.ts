// GENERATED from crates/switchboard-api by ts-rs: do not edit.
// Regenerate with `SWITCHBOARD_WRITE_TS=1 cargo test -p switchboard-api --test typescript`.

/**
 * The whole hub, as of `generatedAt`.
 */
export type HubSnapshot = { 
/**
 * Switchboard's version.
 */
version: string, 
/**
 * The merged MCP endpoint, `http://127.0.0.1:<port>/mcp`, with the port actually bound.
 */
endpoint: string, 
/**
 * The config file, or null for a hub started without one (embedded use).
 */
configPath: string | null, 
/**
 * Set while the config file on disk is invalid (the last good one keeps running).
 */
configError: ConfigError | null, 
/**
 * What the last config reload did; null until the first reload.
 */
lastReload: ReloadResult | null, 
/**
 * When the hub started (RFC 3339).
 */
startedAt: string | null, 
/**
 * When this snapshot was built (RFC 3339).
 */
generatedAt: string | null, 
/**
 * One entry per configured server, in config-file order.
 */
servers: Array<ServerSnapshot>, 
/**
 * Counts over all servers.
 */
totals: Totals, 
/**
 * Connected downstream MCP sessions, merged and pass-through.
 */
sessions: Array<SessionSnapshot>, 
/**
 * The merged MCP endpoints and how many tools a client of each gets.
 */
endpoints: Array<EndpointSnapshot>, };

/**
 * Counts over the whole hub.
 */
export type Totals = { 
/**
 * Configured servers, disabled ones included.
 */
servers: number, 
/**
 * Tools in the merged list clients get: the servers' (after
 * `disabledTools`) plus Switchboard's own (`builtinTools` of them).
 */
tools: number, 
/**
 * How many of `tools` are Switchboard's own built-in tools
 * (`switchboard__*`; 0 with `settings.builtinTools: false`).
 */
builtinTools: number, 
/**
 * Prompts in the merged list.
 */
prompts: number, 
/**
 * Resources in the merged list (after de-duplication; templates not counted).
 */
resources: number, 
/**
 * Tokens (`o200k_base`) of the tool definitions a client of `/mcp`
 * gets in `tools/list`: every exposed tool plus the built-in ones.
 */
toolTokens: number, };

/**
 * One server.
 */
export type ServerSnapshot = { 
/**
 * The key in `mcpServers`.
 */
id: string, 
/**
 * `stdio`, `http` (Streamable HTTP) or `sse` (the legacy HTTP+SSE transport).
 */
transport: string, 
/**
 * As configured.
 */
enabled: boolean, 
/**
 * The lifecycle state.
 */
state: ServerState, 
/**
 * Exposed tools (after `disabledTools`), as of the last listing.
 */
toolCount: number, 
/**
 * Prompts as the server listed them.
 */
promptCount: number, 
/**
 * Resources as the server listed them.
 */
resourceCount: number, 
/**
 * Resource templates as the server listed them.
 */
resourceTemplateCount: number, 
/**
 * When the lists were last fetched (RFC 3339), or null if never.
 */
listedAt: string | null, 
/**
 * What caused that listing.
 */
refreshTrigger: RefreshTrigger | null, 
/**
 * When the listing stops counting as fresh (`listedAt` + `cacheTtlSecs`).
 */
ttlExpiresAt: string | null, 
/**
 * The last refresh failed; the lists shown are the last known ones.
 */
stale: boolean, 
/**
 * The last failure as a sentence naming the server and cause; cleared by the next success.
 */
lastError: string | null, 
/**
 * The last time the server answered (an error answer counts).
 */
lastOkAt: string | null, 
/**
 * The last transport failure.
 */
lastFailureAt: string | null, 
/**
 * Transport failures in a row; reset by any answer.
 */
consecutiveFailures: number, 
/**
 * Process id of the running stdio child, null when none runs.
 */
pid: number | null, 
/**
 * What the server said at `initialize`, as of the last listing.
 */
serverName: string | null, 
/**
 * The server's version from `initialize`.
 */
serverVersion: string | null, 
/**
 * The protocol version agreed at `initialize`.
 */
protocolVersion: string | null, 
/**
 * The last stderr lines of a stdio server, across restarts. Private:
 * only in answers to a request with the control token or the
 * dashboard's session; left out of the open status and events.
 */
stderrTail?: Array<string>, 
/**
 * Derived from the last listings, calls and polls.
 */
health: Health, 
/**
 * The circuit breaker.
 */
breaker: BreakerSnapshot, 
/**
 * Smoothed latency of successful requests (ms).
 */
latencyMs: number | null, 
/**
 * The last change of the lists: what was added, removed or modified.
 */
lastChange: ListChange | null, 
/**
 * The lists come from the previous run and the server has not been started yet.
 */
unverified: boolean, 
/**
 * When the poller re-lists this server next (only while it runs).
 */
nextPollAt: string | null, 
/**
 * OAuth state of a remote server (null for stdio servers). Never a token.
 */
auth: AuthSnapshot | null, 
/**
 * Tools withheld because their definition changed since it was approved
 * (`toolPinning: "hold"`); approve them to list them again.
 */
heldTools: Array<HeldTool>, 
/**
 * Tools listed although their definition changed since it was approved
 * (`toolPinning: "warn"`).
 */
changedTools: Array<HeldTool>, 
/**
 * Tools first seen after the server's first listing, not yet approved.
 */
newTools: Array<string>, 
/**
 * What a person should know about the last listing, one sentence each:
 * a tool or prompt left out because its name is Switchboard's own
 * (`switchboard__...`), a name listed more than once.
 */
notes: Array<string>, 
/**
 * Tokens (`o200k_base`) of this server's exposed tool definitions (after
 * `disabledTools`, with the names clients see), as of the last listing.
 */
toolTokens: number, 
/**
 * The sandbox this stdio server runs in (see docs/security.md).
 */
sandbox: SandboxStatus, };

/**
 * A server's lifecycle state as shown to people.
 */
export type ServerState = "disabled" | "idle" | "starting" | "ready" | "sleeping" | "failed" | "authRequired";

/**
 * A derived, coarse health for people.
 */
export type Health = "healthy" | "degraded" | "down" | "unknown";

/**
 * The state of a server's circuit breaker.
 */
export type BreakerState = "closed" | "open" | "halfOpen";

/**
 * The circuit breaker of one server.
 */
export type BreakerSnapshot = { 
/**
 * Closed, open or half-open.
 */
state: BreakerState, 
/**
 * While open: when the next attempt is let through.
 */
retryAt: string | null, };

/**
 * What caused a listing.
 */
export type RefreshTrigger = "startup" | "firstUse" | "ttl" | "notification" | "poll" | "manual" | "reload";

/**
 * What changed between two listings of a server. Tools are named as they are
 * upstream; prompts, resources and templates carry a `prompt:`, `resource:`
 * or `template:` prefix.
 */
export type ListChange = { 
/**
 * When the second listing was made.
 */
at: string, 
/**
 * What caused it.
 */
trigger: RefreshTrigger, 
/**
 * Names new in the second listing.
 */
added: Array<string>, 
/**
 * Names gone from it.
 */
removed: Array<string>, 
/**
 * Same name, different definition (description, schema, ...).
 */
modified: Array<string>, };

/**
 * A connected MCP client session.
 */
export type SessionSnapshot = { 
/**
 * `clientInfo.name` and `version` from the client's `initialize`.
 */
client: string | null, 
/**
 * The last time it listed tools, prompts or resources.
 */
lastListedAt: string | null, 
/**
 * The last time Switchboard sent it a `list_changed`.
 */
notifiedAt: string | null, 
/**
 * Told that tools (or prompts/resources) changed, and has not listed since.
 */
behind: boolean, };

/**
 * One merged MCP endpoint: `/mcp`, or a profile's `/profiles/<name>/mcp`.
 */
export type EndpointSnapshot = { 
/**
 * The path clients connect to, e.g. `/mcp`.
 */
path: string, 
/**
 * What its `tools/list` offers.
 */
toolMode: ToolMode, 
/**
 * How many tools its `tools/list` returns, built-in tools included.
 */
tools: number, 
/**
 * Tokens of the tool definitions its `tools/list` returns (`o200k_base`,
 * counted as each server's `toolTokens`); incomplete until
 * `tokensCounted`.
 */
toolTokens: number, 
/**
 * Whether `toolTokens` counts every tool it lists: false for a moment
 * after a start or a change of the tools, while the hub counts them
 * (say "counting", not a number, until then).
 */
tokensCounted: boolean, 
/**
 * The profile it serves; absent for `/mcp`.
 */
profile?: EndpointProfile, };

/**
 * What a profile's endpoint serves (never its token).
 */
export type EndpointProfile = { 
/**
 * The profile's name (the `<name>` of its path).
 */
name: string, 
/**
 * The server ids it serves, as configured.
 */
servers: Array<string>, 
/**
 * Whether requests need its bearer token.
 */
hasToken: boolean, 
/**
 * The folder whose `.switchboard.json` this unnamed profile is (served
 * on `/mcp` to the clients whose roots name the folder); absent for a
 * configured profile.
 */
project?: string, };

/**
 * What a merged endpoint lists (`settings.toolMode`).
 */
export type ToolMode = "all" | "search" | "code";

/**
 * What the snapshot says about one remote server's authorization. Never a token.
 */
export type AuthSnapshot = { 
/**
 * The server uses OAuth: it challenged us, has `oauth` settings, or tokens are stored.
 */
required: boolean, 
/**
 * Tokens are stored for it.
 */
loggedIn: boolean, 
/**
 * Where tokens are kept.
 */
keyring: KeyringKind, 
/**
 * A login waits for the browser.
 */
loginPending: boolean, 
/**
 * What to do or what went wrong, for people.
 */
message: string | null, };

/**
 * Which store holds OAuth tokens and secrets.
 */
export type KeyringKind = "secret-service" | "keyutils" | "keychain" | "credential-manager" | "memory" | "unavailable";

/**
 * Why the config file (or a `SWITCHBOARD_*` variable) was refused, as the
 * snapshot and the reload answer carry it. Text that can quote the file or
 * the environment is redacted by the hub.
 */
export type ConfigError = { "kind": "read", 
/**
 * The config file.
 */
path: string, 
/**
 * Why, for people.
 */
message: string, } | { "kind": "missing", 
/**
 * The config file.
 */
path: string, 
/**
 * Why, for people.
 */
message: string, } | { "kind": "empty", 
/**
 * The config file.
 */
path: string, 
/**
 * Why, for people.
 */
message: string, } | { "kind": "notAFile", 
/**
 * The config file.
 */
path: string, 
/**
 * Why, for people.
 */
message: string, } | { "kind": "unsafe", 
/**
 * The config file.
 */
path: string, 
/**
 * Why, for people.
 */
message: string, } | { "kind": "invalid", 
/**
 * The config file.
 */
path: string, 
/**
 * 1-based line of the error.
 */
line: number, 
/**
 * 1-based column of the error.
 */
column: number, 
/**
 * Why, for people.
 */
message: string, } | { "kind": "env", 
/**
 * The variable's name.
 */
name: string, 
/**
 * Its value (masked when the name says it holds a secret).
 */
value: string, 
/**
 * Why, for people.
 */
message: string, };

/**
 * What a config reload did. Lists hold server ids.
 */
export type ReloadResult = { 
/**
 * When it ran (RFC 3339).
 */
at: string, 
/**
 * Servers new in the config (started lazily).
 */
added: Array<string>, 
/**
 * Servers whose connection-relevant fields changed: rebuilt.
 */
changed: Array<string>, 
/**
 * Servers with only catalog-level changes (e.g. `disabledTools`): updated in place.
 */
updated: Array<string>, 
/**
 * Servers gone from the config: shut down.
 */
removed: Array<string>, 
/**
 * Servers left as they were.
 */
unchanged: Array<string>, 
/**
 * Why the reload was refused, or settings that need a restart to apply.
 */
errors: Array<string>, };

/**
 * The answer of a refused request: an unknown server (404), a refused
 * credential or origin (401, 403), a request from the hub itself (508).
 */
export type ErrorResponse = { 
/**
 * What went wrong, for people.
 */
error: string, };

/**
 * `POST /api/v1/refresh`: every enabled server re-listed.
 */
export type RefreshAllResponse = { 
/**
 * One entry per enabled server.
 */
servers: Array<RefreshResult>, };

/**
 * How re-listing one server went (`POST /api/v1/servers/<id>/refresh`, and
 * each entry of [`RefreshAllResponse`]).
 */
export type RefreshResult = { 
/**
 * The server.
 */
id: string, 
/**
 * Whether it listed.
 */
ok: boolean, 
/**
 * Why it did not, for people.
 */
error?: string, 
/**
 * The failure's kind, as in the MCP errors' `data.kind` (`processExited`,
 * `timeout`, ...). Only in the one-server route's answer.
 */
kind?: string, };

/**
 * `POST /api/v1/reload`, `/servers/<id>/enable` and `/servers/<id>/disable`.
 */
export type ReloadResponse = { 
/**
 * Always true.
 */
ok: boolean, 
/**
 * What the reload did.
 */
reload: ReloadResult, } | { 
/**
 * Always false.
 */
ok: boolean, 
/**
 * Why, for people (`<path>:<line>:<col>: <message>` for a bad file).
 */
error: string, 
/**
 * The refused file's error, null for the other refusals.
 */
configError: ConfigError | null, };

/**
 * `GET /api/v1/servers/<id>/logs`.
 */
export type LogsResponse = { 
/**
 * The server.
 */
id: string, 
/**
 * Its stderr lines, oldest first.
 */
stderr: Array<string>, 
/**
 * The hub's own log lines about it, oldest first.
 */
events: Array<LogLine>, };

/**
 * One line of the hub's own log about a server (not the server's stderr).
 */
export type LogLine = { 
/**
 * When (RFC 3339).
 */
at: string, 
/**
 * `info`, `warn` or `error`.
 */
level: string, 
/**
 * What happened, for people.
 */
message: string, };

/**
 * `POST /api/v1/servers/<id>/login` when the login started: open the URL.
 */
export type LoginResponse = { 
/**
 * The server.
 */
id: string, 
/**
 * Always true.
 */
ok: boolean, 
/**
 * Open this in a browser.
 */
authorizationUrl: string, 
/**
 * Where the browser is sent back to (`http://127.0.0.1:<port>/oauth/callback`).
 */
redirectUri: string, };

/**
 * `POST /api/v1/servers/<id>/logout` when it worked.
 */
export type LogoutResponse = { 
/**
 * The server.
 */
id: string, 
/**
 * Always true.
 */
ok: boolean, };

/**
 * A login or logout that failed.
 */
export type AuthFailure = { 
/**
 * The server.
 */
id: string, 
/**
 * Always false.
 */
ok: boolean, 
/**
 * What went wrong and what to do, for people.
 */
error: string, 
/**
 * The same, for programs.
 */
detail: AuthErrorDetail, };

/**
 * Why a login, a logout or a secret lookup failed.
 */
export type AuthErrorDetail = { "kind": "unknownServer", server: string, } | { "kind": "notRemote", server: string, } | { "kind": "callback", port: number, message: string, } | { "kind": "discovery", server: string, message: string, } | { "kind": "registration", server: string, message: string, } | { "kind": "denied", server: string, error: string, description: string | null, } | { "kind": "stateMismatch", server: string, } | { "kind": "tokenExchange", server: string, message: string, } | { "kind": "timedOut", server: string, after: WireDuration, } | { "kind": "cancelled", server: string, } | { "kind": "other", server: string, message: string, } | { "kind": "missingSecret", name: string, } | { "kind": "store", message: string, };

/**
 * A duration as serde writes one.
 */
export type WireDuration = { 
/**
 * Whole seconds.
 */
secs: number, 
/**
 * The rest, in nanoseconds.
 */
nanos: number, };

/**
 * `POST /api/v1/dashboard`: a one-time sign-in link for the dashboard.
 */
export type DashboardLink = { 
/**
 * Whether a link was made.
 */
ok: boolean, 
/**
 * The link (valid two minutes, once).
 */
url?: string, 
/**
 * Why none was made.
 */
error?: string, };

/**
 * `GET /api/v1/servers/<id>/config`: one server's definition as written in
 * the config file, secret-looking values (secret env values and headers,
 * URL credentials) replaced by `***`. Sending `***` back in a `PUT` keeps
 * the value that was there.
 */
export type ServerDefinition = { 
/**
 * The server.
 */
id: string, 
/**
 * The definition (`command`, `args`, `env`, or `url`, `headers`, ...).
 */
definition: Record<string, unknown>, };

/**
 * `GET /api/v1/import`: what `switchboard import --dry-run` would add.
 */
export type ImportOffer = { 
/**
 * The servers an import would add, in the order found.
 */
candidates: Array<ImportCandidate>, 
/**
 * The client files that were read (`"Claude Desktop: 3 servers"`, ...).
 */
lookedAt: Array<string>, 
/**
 * Files that could not be read and entries that were refused, for people.
 */
problems: Array<string>, };

/**
 * One server an import would add.
 */
export type ImportCandidate = { 
/**
 * The id it gets in Switchboard's config.
 */
id: string, 
/**
 * The client it comes from (`Claude Desktop`, `Cursor`, ...), when known.
 */
client?: string, 
/**
 * The client's config file.
 */
file: string, 
/**
 * The name the client gives it.
 */
name: string, 
/**
 * The definition in Switchboard's format, secrets as `***`.
 */
definition: Record<string, unknown>, 
/**
 * Renames, fields not carried over, placeholders.
 */
notes: Array<string>, };

/**
 * The body of `POST /api/v1/import`: which candidates to import, by id;
 * none given (or `"all": true`) imports every one.
 */
export type ImportSelection = { 
/**
 * The candidates' ids.
 */
ids?: Array<string>, 
/**
 * Import every candidate.
 */
all: boolean, };

/**
 * `POST /api/v1/import`: what was written and how the reload went.
 */
export type ImportResponse = { 
/**
 * Whether the import was written and applied.
 */
ok: boolean, 
/**
 * The ids written to the config file.
 */
added: Array<string>, 
/**
 * The copy of the previous config file, when there was one.
 */
backup?: string, 
/**
 * The reload that applied it.
 */
reload?: ReloadResult, 
/**
 * Why not, for people.
 */
error?: string, };

/**
 * A tool whose definition differs from the one approved (pinned).
 */
export type HeldTool = { 
/**
 * The tool's name as its server lists it.
 */
name: string, 
/**
 * What changed, e.g. `description` or `description, input schema`
 * (parts: title, description, input schema, output schema, annotations).
 */
change: string, 
/**
 * When the change was first seen (RFC 3339).
 */
since: string, 
/**
 * SHA-256 (hex) of the definition the server lists now, the one a person
 * reviews: send it back in the approval so that only this definition is
 * approved (see [`ReviewedTool`]).
 */
hash: string, 
/**
 * What scanning the definition found (see "Scanning tool definitions" in
 * `docs/security.md`); a tool with findings is held even on first
 * sight. Empty for a tool held only because it changed.
 */
findings: Array<ToolFinding>, };

/**
 * One finding of the definition scan: which rule matched, and where.
 */
export type ToolFinding = { 
/**
 * The rule's id, e.g. `instruction-tag`, `credential-file`,
 * `invisible-unicode`.
 */
rule: string, 
/**
 * The text around the match (at most about 160 characters, invisible
 * characters written as `<U+XXXX>`, secrets redacted).
 */
excerpt: string, };

/**
 * A server's sandbox: what its policy asks for and what this machine
 * enforces (as its last start reported, or as expected before one).
 */
export type SandboxStatus = { 
/**
 * `standard`, `custom` or `off` (unsandboxed, or a remote server).
 */
profile: string, 
/**
 * Every part of the profile is in force.
 */
enforced: boolean, 
/**
 * How it is enforced (`mount namespace + Landlock ABI 7`,
 * `sandbox-exec (Seatbelt)`), `none`, or `not applicable` for a remote server.
 */
mechanism: string, 
/**
 * What is not enforced and why, when something is not.
 */
missing: string | null, 
/**
 * Inherited environment variables with secret-looking names the server
 * did not get at its last start (names only).
 */
droppedEnv: Array<string>, 
/**
 * The last access the sandbox refused, as the server reported it.
 */
lastDenial: string | null, };

/**
 * One held or changed tool with both definitions, for a diff.
 */
export type HeldDefinition = { 
/**
 * The tool's name as its server lists it.
 */
name: string, 
/**
 * What changed (as in [`HeldTool::change`]).
 */
change: string, 
/**
 * When the change was first seen (RFC 3339).
 */
since: string, 
/**
 * `true` when the tool is withheld (`toolPinning: "hold"`), `false` when
 * it is listed with a flag (`"warn"`).
 */
held: boolean, 
/**
 * The approved definition (as the server listed it then).
 */
approved: unknown, 
/**
 * The definition the server lists now.
 */
current: unknown, 
/**
 * SHA-256 (hex) of `current` (as in [`HeldTool::hash`]).
 */
hash: string, 
/**
 * What scanning `current` found (as in [`HeldTool::findings`]).
 */
findings: Array<ToolFinding>, };

/**
 * `GET /api/v1/servers/<id>/held`.
 */
export type HeldResponse = { 
/**
 * The server id.
 */
server: string, 
/**
 * Its held and changed tools, by name.
 */
tools: Array<HeldDefinition>, };

/**
 * The body of `POST /api/v1/servers/<id>/approve`; no body (or no `tools`)
 * approves every held or changed tool of the server.
 */
export type ApproveRequest = { 
/**
 * The tools: names as the server lists them, or names with the hash of
 * the definition reviewed.
 */
tools: Array<ApproveTool> | null, };

/**
 * One tool to approve: `"name"` approves whatever the server lists now,
 * `{"name": ..., "hash": ...}` only the definition with that hash.
 */
export type ApproveTool = string | ReviewedTool;

/**
 * A tool name with the hash ([`HeldTool::hash`]) of the definition that
 * was shown: the approval is refused (409, nothing approved) when the server
 * lists another definition by now.
 */
export type ReviewedTool = { 
/**
 * The tool's name as the server lists it.
 */
name: string, 
/**
 * SHA-256 (hex) of the definition reviewed; without it, the name alone.
 */
hash?: string, };

/**
 * The answer to an approval.
 */
export type ApproveResponse = { 
/**
 * The server id.
 */
server: string, 
/**
 * The tools re-pinned to their current definitions.
 */
approved: Array<string>, 
/**
 * The secret headers a remote being vetted may now connect with (it
 * could not be listed without them); its tools are then held for
 * review. Left out when none.
 */
headers?: Array<string>, };

/**
 * `GET /api/v1/servers/<id>/tools`: the server's last listing, disabled
 * tools included.
 */
export type ServerToolsResponse = { 
/**
 * The server id.
 */
server: string, 
/**
 * `false` when the server was never listed (nothing is started to list it).
 */
listed: boolean, 
/**
 * Its tools in the order the server lists them.
 */
tools: Array<ServerTool>, };

/**
 * One tool of a server.
 */
export type ServerTool = { 
/**
 * The tool's own name at its server (what `disabledTools` holds).
 */
name: string, 
/**
 * The first line of its description ("" when it has none).
 */
description: string, 
/**
 * `false` when the server's `disabledTools` hides it.
 */
enabled: boolean, 
/**
 * Tokens (`o200k_base`) of its definition as the server lists it;
 * `null` until the hub has counted the listing (moments after it came).
 */
tokens: number | null, 
/**
 * The names of its arguments (its input schema's `properties`), for
 * the override editor.
 */
arguments: Array<string>, 
/**
 * Its override (`mcpServers.<id>.toolOverrides.<name>`), when it has one.
 */
toolOverride?: ToolOverride, };

/**
 * One tool's override as the config file holds it, and the body of
 * `PUT /api/v1/servers/{id}/tools/{tool}/override`: the name and
 * description clients see, argument defaults, hidden arguments (which always
 * take their default).
 */
export type ToolOverride = { name?: string, description?: string, 
/**
 * Values filled in when a call leaves the argument out.
 */
arguments?: Record<string, unknown>, 
/**
 * Arguments removed from the schema clients see.
 */
hideArguments?: Array<string>, };

/**
 * `GET /api/v1/search`: best match first.
 */
export type SearchResponse = { tools: Array<SearchedTool>, };

/**
 * One search result, as `switchboard__search_tools` gives it.
 */
export type SearchedTool = { 
/**
 * The name to call it by on `/mcp` (`<server>__<tool>`).
 */
name: string, 
/**
 * Its description ("" when it has none).
 */
description: string, 
/**
 * Its input schema as the server lists it.
 */
inputSchema: Record<string, unknown>, 
/**
 * The server's id.
 */
server: string, 
/**
 * Whether the server is running now (a call to a stopped one starts it).
 */
running: boolean, 
/**
 * Why it was found: its words, its meaning, or both.
 */
matched: SearchMatch, };

/**
 * Which ranking found a search result (`docs/search-ranking.md`).
 */
export type SearchMatch = "lexical" | "semantic" | "both";

/**
 * `GET /api/v1/activity?limit=N&after=SEQ`: recorded calls, newest first.
 */
export type ActivityResponse = { 
/**
 * The newest calls (at most `limit`; only those after `after` when given), newest first.
 */
calls: Array<ActivityEntry>, 
/**
 * Calls not recorded since the hub started, because the recorder was
 * behind (its queue was full); calls never wait for the log.
 */
dropped: number, };

/**
 * One recorded call.
 */
export type ActivityEntry = { 
/**
 * Its number, counting from 1 since the hub started; `after=<seq>` asks for newer ones.
 */
seq: number, 
/**
 * When the call arrived (RFC 3339).
 */
time: string, 
/**
 * `tools/call`, `prompts/get` or `resources/read`.
 */
method: string, 
/**
 * The tool or prompt name, or the resource URI, as the client sent it.
 */
name: string, 
/**
 * The client's name from its `initialize` (`clientInfo.name`), if it gave one.
 */
client: string | null, 
/**
 * The MCP session id (`Mcp-Session-Id`), if the session has one.
 */
session: string | null, 
/**
 * The route the call came in on: `/mcp` or `/servers/<id>/mcp`.
 */
endpoint: string, 
/**
 * The profile the call came through; null until profiles exist.
 */
profile: string | null, 
/**
 * The server that served it (`switchboard` for a built-in tool); null
 * when the name led to no server.
 */
server: string | null, 
/**
 * How long it took, in milliseconds.
 */
durationMs: number, 
/**
 * How it ended.
 */
outcome: ActivityOutcome, 
/**
 * Why it failed (redacted), for people; null when it did not.
 */
error: string | null, 
/**
 * The size of the arguments as JSON, in bytes.
 */
argumentBytes: number, 
/**
 * The size of the result as JSON, in bytes (0 when there is none).
 */
resultBytes: number, 
/**
 * The arguments as JSON text with secrets redacted; only with
 * `settings.activityArguments`.
 */
arguments?: string, 
/**
 * How the call was approved or denied, when it needed a person's
 * approval (`settings.confirmCalls`).
 */
approval?: ActivityApproval, 
/**
 * The kinds of credentials found in the result (`aws-access-key`,
 * `github-token`, ...; see `settings.resultSecrets`); never the values.
 */
resultSecrets?: Array<string>, 
/**
 * The task (SEP-2663) the call made or reports on: a `tools/call`
 * answered with a task, then one `tasks/get` entry per status change the
 * hub saw, up to the final one.
 */
task?: ActivityTask, 
/**
 * The code mode run (`switchboard__run_code`) the call belongs to: the
 * run's own entry and each call its script made carry the same id.
 */
run?: string, };

/**
 * How a recorded call ended.
 */
export type ActivityOutcome = "ok" | "error" | "cancelled" | "timeout";

/**
 * A task in the activity log.
 */
export type ActivityTask = { 
/**
 * The task id the client was given (`sbt-...`), never the server's own.
 */
id: string, 
/**
 * `working`, `input_required`, `completed`, `failed` or `cancelled`.
 */
status: string, };

/**
 * `GET /api/v1/pending`: the calls waiting, oldest first.
 */
export type PendingResponse = { calls: Array<PendingCall>, };

/**
 * One call waiting for a decision.
 */
export type PendingCall = { 
/**
 * What `allow` and `deny` name it by.
 */
id: string, 
/**
 * The server the call is for.
 */
server: string, 
/**
 * The tool's name as that server lists it.
 */
tool: string, 
/**
 * The call's arguments, secrets replaced by `***`.
 */
arguments: Record<string, unknown>, 
/**
 * The calling client's name from its `initialize`, if it gave one.
 */
client: string | null, 
/**
 * When the call arrived (RFC 3339).
 */
since: string, };

/**
 * The optional body of `POST /api/v1/pending/<id>/allow`: `always` also
 * adds the tool to its server's `allowTools` in the config file.
 */
export type DecideRequest = { always?: boolean, };

/**
 * The answer to `allow` and `deny`: the call decided.
 */
export type DecideResponse = { id: string, 
/**
 * `allow` or `deny`.
 */
decision: string, 
/**
 * Whether the tool was added to its server's `allowTools`.
 */
always: boolean, 
/**
 * Why adding it to `allowTools` failed (the call was allowed anyway).
 */
error?: string, };

/**
 * How a call that needed approval was decided, as the activity log keeps it.
 */
export type ActivityApproval = { 
/**
 * `allowed`, `denied` or `timedOut`.
 */
decision: string, 
/**
 * Who decided: `api` (the control API, the CLI), `dashboard`,
 * `elicitation` (the calling client), `app`, or `timeout`.
 */
by: string, 
/**
 * How long the call waited for the decision, in milliseconds.
 */
waitedMs: number, };

/**
 * The servers a registry search found.
 */
export type RegistrySearchResponse = { 
/**
 * The registry asked (`settings.registryUrl`).
 */
registry: string, servers: Array<RegistryServer>, 
/**
 * When the registry could not be reached and a cached answer is shown:
 * when it was cached (RFC 3339).
 */
staleSince?: string | null, };

/**
 * One server of a search.
 */
export type RegistryServer = { 
/**
 * The registry name (`io.github.owner/server`).
 */
name: string, version: string, title: string | null, description: string | null, 
/**
 * `stdio (npm)`, `stdio (pypi)`, `stdio (oci)`, `streamable-http`, `sse`.
 */
transports: Array<string>, 
/**
 * Whether it is installed: added from the registry (in
 * `servers.lock.json`) and configured.
 */
installed: boolean, 
/**
 * The id it is configured under, when installed.
 */
installedAs: string | null, 
/**
 * The values an install asks for: env variables of a package.
 */
env: Array<RegistryInput>, 
/**
 * The values an install asks for: headers of a remote.
 */
headers: Array<RegistryInput>, };

/**
 * An env variable or header a server's document declares.
 */
export type RegistryInput = { name: string, description: string | null, required: boolean, 
/**
 * Kept in the OS keyring, never in the config file.
 */
secret: boolean, default: string | null, };

/**
 * `POST /api/v1/registry/install`.
 */
export type RegistryInstallRequest = { name: string, version?: string | null, id?: string | null, env?: { [key in string]?: string } | null, headers?: { [key in string]?: string } | null, };

/**
 * The answer to an install: the server's id (being vetted: its tools are
 * held with change `new server` until approved).
 */
export type RegistryInstallResponse = { id: string, };

/** Every control API route, `"<METHOD> <path>"` (axum's `{param}` syntax): the
 * privilege it needs, the body it takes (`never`: none), the answer it gives. */
export type ApiRoutes = {
  "GET /api/v1/status": { privilege: "open"; body: never; answer: HubSnapshot };
  "GET /api/v1/events": { privilege: "open"; body: never; answer: HubSnapshot };
  "POST /api/v1/refresh": { privilege: "write"; body: never; answer: RefreshAllResponse };
  "POST /api/v1/reload": { privilege: "write"; body: never; answer: ReloadResponse };
  "POST /api/v1/servers/{id}/refresh": { privilege: "write"; body: never; answer: RefreshResult };
  "POST /api/v1/servers/{id}/enable": { privilege: "write"; body: never; answer: ReloadResponse };
  "POST /api/v1/servers/{id}/disable": { privilege: "write"; body: never; answer: ReloadResponse };
  "GET /api/v1/servers/{id}/logs": { privilege: "private read"; body: never; answer: LogsResponse };
  "PUT /api/v1/servers/{id}": { privilege: "write"; body: Record<string, unknown>; answer: ReloadResponse };
  "DELETE /api/v1/servers/{id}": { privilege: "write"; body: never; answer: ReloadResponse };
  "GET /api/v1/servers/{id}/config": { privilege: "private read"; body: never; answer: ServerDefinition };
  "GET /api/v1/import": { privilege: "private read"; body: never; answer: ImportOffer };
  "POST /api/v1/import": { privilege: "write"; body: ImportSelection; answer: ImportResponse };
  "GET /api/v1/servers/{id}/tools": { privilege: "open"; body: never; answer: ServerToolsResponse };
  "POST /api/v1/servers/{id}/tools/{tool}/enable": { privilege: "write"; body: never; answer: ReloadResponse };
  "POST /api/v1/servers/{id}/tools/{tool}/disable": { privilege: "write"; body: never; answer: ReloadResponse };
  "PUT /api/v1/servers/{id}/tools/{tool}/override": { privilege: "write"; body: ToolOverride; answer: ReloadResponse };
  "DELETE /api/v1/servers/{id}/tools/{tool}/override": { privilege: "write"; body: never; answer: ReloadResponse };
  "GET /api/v1/search": { privilege: "open"; body: never; answer: SearchResponse };
  "GET /api/v1/servers/{id}/held": { privilege: "private read"; body: never; answer: HeldResponse };
  "POST /api/v1/servers/{id}/approve": { privilege: "write"; body: ApproveRequest; answer: ApproveResponse };
  "GET /api/v1/activity": { privilege: "private read"; body: never; answer: ActivityResponse };
  "GET /api/v1/pending": { privilege: "private read"; body: never; answer: PendingResponse };
  "POST /api/v1/pending/{id}/allow": { privilege: "write"; body: DecideRequest; answer: DecideResponse };
  "POST /api/v1/pending/{id}/deny": { privilege: "write"; body: never; answer: DecideResponse };
  "POST /api/v1/dashboard": { privilege: "write"; body: never; answer: DashboardLink };
  "POST /api/v1/servers/{id}/login": { privilege: "write"; body: never; answer: LoginResponse };
  "POST /api/v1/servers/{id}/logout": { privilege: "write"; body: never; answer: LogoutResponse };
  "GET /api/v1/registry": { privilege: "private read"; body: never; answer: RegistrySearchResponse };
  "POST /api/v1/registry/install": { privilege: "write"; body: RegistryInstallRequest; answer: RegistryInstallResponse };
};

/** A control API route's key in [`ApiRoutes`]. */
export type ApiRoute = keyof ApiRoutes;
