"""Code mode's task suite (issue #31): 20 multi-step tasks over the real tool definitions of
`bench/search/catalog.json`, with deterministic data for the fixture servers that serve them.

Each task is a plan, written twice: `plan(call)` in Python is what an agent does turn by turn
in `all` and `search` mode (each `call(tool, args)` is one tool call whose whole result the
model reads), and `script` is the same plan as one `switchboard__run_code` body. Both must
give `expected`. `find` lists the search queries an agent would make to find the tools it uses
(in `search` and `code` mode). Data comes from a seeded generator, so every run is the same.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

RNG = random.Random(31)
WORDS = ("cache config login sync upload export token session search index parser "
         "scheduler webhook billing report invite profile avatar mobile dashboard").split()
PEOPLE = ["ada", "grace", "linus", "margaret", "dennis", "barbara", "ken", "frances"]


def sentence(n: int) -> str:
    return " ".join(RNG.choice(WORDS) for _ in range(n)).capitalize() + "."


def para(sentences: int) -> str:
    return " ".join(sentence(RNG.randint(6, 12)) for _ in range(sentences))


LABELS = [["bug"], ["feature"], ["docs"], ["bug", "auth"], ["enhancement"], ["bug", "ui"],
          ["question"], ["feature", "api"]]
ISSUES = [{
    "number": n, "title": f"{RNG.choice(WORDS).capitalize()} {RNG.choice(WORDS)} {RNG.choice(['fails', 'is slow', 'breaks', 'needs work', 'is missing'])}",
    "state": "open", "labels": [{"name": name} for name in LABELS[n % len(LABELS)]],
    "user": {"login": PEOPLE[n % len(PEOPLE)]}, "assignee": {"login": PEOPLE[(n * 3) % len(PEOPLE)]},
    "comments": RNG.randint(0, 14), "created_at": f"2026-11-{1 + n % 28:02d}T10:00:00Z",
    "body": para(3), "html_url": f"https://github.com/acme/app/issues/{n}",
} for n in range(1, 41)]
PULLS = [{
    "number": 100 + n, "title": f"{RNG.choice(['Fix', 'Add', 'Refactor', 'Speed up'])} {RNG.choice(WORDS)}",
    "user": {"login": PEOPLE[n % len(PEOPLE)]}, "draft": n % 4 == 0,
    "requested_reviewers": [] if n % 3 == 0 else [{"login": PEOPLE[(n + 2) % len(PEOPLE)]}],
    "body": para(2), "head": {"ref": f"branch-{n}"}, "base": {"ref": "main"},
} for n in range(1, 16)]
COMMITS = [{
    "sha": f"{RNG.getrandbits(160):040x}",
    "commit": {"message": f"{RNG.choice(['fix', 'feat', 'docs', 'chore', 'fix'])}: {sentence(5)}",
               "author": {"name": PEOPLE[(n * 5) % len(PEOPLE)].capitalize(),
                          "date": f"2026-11-{1 + n % 28:02d}T09:00:00Z"}},
} for n in range(30)]
SLACK_USERS = [{
    "id": f"U{n:04d}", "name": name, "real_name": f"{name.capitalize()} {RNG.choice(['Lovelace', 'Hopper', 'Ritchie', 'Liskov', 'Allen', 'Thompson'])}",
    "profile": {"title": RNG.choice(["Engineer", "Designer", "Manager", "SRE"]),
                "email": f"{name}@acme.dev", "github": name, "tz": "Europe/Berlin",
                "status_text": sentence(4)},
} for n, name in enumerate(PEOPLE + ["olivia", "noah", "emma", "liam"])]
CHANNELS = [{"id": f"C{n:04d}", "name": name, "topic": {"value": sentence(6)}, "num_members": 5 + n}
            for n, name in enumerate(["general", "dev", "random", "releases", "ops", "design",
                                      "support", "sales", "alerts", "standup", "hiring", "books"])]
HISTORY = [{"user": SLACK_USERS[(n * 7) % 9]["id"], "text": para(1), "ts": f"17640{n:05d}.000100",
            "reactions": [{"name": "eyes", "count": n % 3}]} for n in range(30)]
SENTRY = [{
    "id": f"{4100 + n}", "shortId": f"APP-{n + 1}", "title": f"{RNG.choice(['TypeError', 'KeyError', 'Timeout', 'OOM'])} in {RNG.choice(WORDS)}",
    "culprit": f"app/{RNG.choice(WORDS)}.py", "count": RNG.randint(1, 5000), "userCount": RNG.randint(1, 300),
    "level": "fatal" if n % 6 == 0 else "error", "status": "unresolved", "firstSeen": "2026-11-20T08:00:00Z",
    "permalink": f"https://sentry.io/acme/app/issues/{4100 + n}/",
} for n in range(25)]
LINEAR = [{
    "id": f"lin-{n}", "identifier": f"ENG-{200 + n}", "title": sentence(5), "priority": 1 + n % 4,
    "status": RNG.choice(["Todo", "In Progress", "Backlog"]), "assignee": PEOPLE[n % len(PEOPLE)],
    "description": para(2),
} for n in range(30)]
ORDERS = [{"id": n, "customer": RNG.choice(["globex", "initech", "umbrella", "hooli", "stark", "wayne"]),
           "amount": RNG.randint(20, 900), "status": RNG.choice(["paid", "paid", "pending", "refunded"])}
          for n in range(1, 51)]
AIRTABLE = [{"id": f"rec{n:03d}", "fields": {"Name": sentence(3), "Status": RNG.choice(["Done", "Doing", "Todo"]),
             "Hours": RNG.randint(1, 12), "Owner": PEOPLE[n % 5]}} for n in range(30)]
ENTITIES = [{"name": f"{kind}-{n}", "entityType": kind,
             "observations": [sentence(5), RNG.choice(["Writes Rust", "Writes Go", "Likes tea"])]}
            for n, kind in enumerate(["person", "project"] * 10)]
RELATIONS = [{"from": f"person-{2 * n}", "to": f"project-{2 * n + 1}", "relationType": "works_on"}
             for n in range(10)]
FILES = [{"name": f"{RNG.choice(WORDS)}_{n}.rs", "size": RNG.randint(200, 90000)} for n in range(40)]
PACKAGE = {"name": "app", "version": "3.14.2", "private": True,
           "dependencies": {w: f"^{RNG.randint(1, 9)}.{RNG.randint(0, 20)}.0" for w in WORDS}}
GIT_LOG = "\n".join(f"Commit: {c['sha']}\nAuthor: {c['commit']['author']['name']}\n"
                    f"Date: {c['commit']['author']['date']}\nMessage: {c['commit']['message']}\n"
                    for c in COMMITS)

REPO = {"owner": "acme", "repo": "app"}


def text(value: Any) -> Any:
    """A result a real server sends as JSON text (a list; the fixture sends non-objects as text)."""
    return value


# (server, tool) -> [(when, result)]: what the fixture servers answer.
DATA: dict[tuple[str, str], list[tuple[dict[str, Any], Any]]] = {
    ("github", "list_issues"): [(REPO, text(ISSUES))],
    ("github", "list_pull_requests"): [(REPO, text(PULLS))],
    ("github", "list_commits"): [(REPO, text(COMMITS))],
    ("github", "get_issue"): [({**REPO, "issue_number": i["number"]}, i) for i in ISSUES],
    ("github", "get_file_contents"): [({**REPO, "path": "package.json"},
                                       [{"type": "file", "path": "package.json", "content": json.dumps(PACKAGE)}])],
    ("slack", "slack_get_users"): [({}, {"ok": True, "members": SLACK_USERS})],
    ("slack", "slack_list_channels"): [({}, {"ok": True, "channels": CHANNELS})],
    ("slack", "slack_get_channel_history"): [({"channel_id": "C0001"}, {"ok": True, "messages": HISTORY})],
    ("slack", "slack_get_user_profile"): [({"user_id": u["id"]}, {"ok": True, "profile": {**u["profile"], "real_name": u["real_name"]}})
                                          for u in SLACK_USERS],
    ("sentry", "search_issues"): [({"organizationSlug": "acme"}, text(SENTRY))],
    ("linear", "linear_search_issues"): [({}, text(LINEAR))],
    ("postgres", "query"): [({}, text(ORDERS))],
    ("airtable", "list_records"): [({"baseId": "appAcme", "tableId": "tblTasks"}, text(AIRTABLE))],
    ("memory", "read_graph"): [({}, {"entities": ENTITIES, "relations": RELATIONS})],
    ("memory", "search_nodes"): [({"query": "project"}, {"entities": [e for e in ENTITIES if e["entityType"] == "project"], "relations": RELATIONS})],
    ("memory", "open_nodes"): [({}, {"entities": ENTITIES[:4], "relations": RELATIONS[:2]})],
    ("git", "git_log"): [({"repo_path": "/srv/app"}, text([GIT_LOG]))],
    ("filesystem", "read_text_file"): [({"path": "/srv/app/package.json"}, text([json.dumps(PACKAGE, indent=2)]))],
    ("filesystem", "list_directory_with_sizes"): [({"path": "/srv/app/src"}, text(FILES))],
    ("time", "get_current_time"): [({"timezone": "Europe/Berlin"}, {"timezone": "Europe/Berlin", "datetime": "2026-12-02T09:30:00+01:00", "is_dst": False})],
    ("time", "convert_time"): [({}, {"source": {"timezone": "Europe/Berlin", "datetime": "2026-12-02T09:30:00+01:00"},
                                     "target": {"timezone": "America/New_York", "datetime": "2026-12-02T03:30:00-05:00"}})],
}

# Tools that change something: the fixture echoes their arguments (`structured`).
WRITES = {("github", "create_issue"), ("github", "add_issue_comment"), ("github", "update_issue"),
          ("slack", "slack_post_message"), ("slack", "slack_add_reaction"),
          ("linear", "linear_add_comment"), ("linear", "linear_create_issue"),
          ("sentry", "update_issue"), ("airtable", "update_records"), ("memory", "add_observations"),
          ("filesystem", "write_file")}


@dataclass
class Task:
    id: str
    prompt: str
    find: list[str]
    plan: Callable[[Callable[[str, dict[str, Any]], Any]], Any]
    script: str
    expected: Any = None
    tools: list[str] = field(default_factory=list)


def labels(issue: dict[str, Any]) -> list[str]:
    return [label["name"] for label in issue["labels"]]


TASKS: list[Task] = []


def task(id: str, prompt: str, find: list[str], script: str):
    def add(plan):
        TASKS.append(Task(id, prompt, find, plan, script.strip()))
        return plan
    return add


@task("bugs-to-slack", "Post the titles of the open issues labelled bug in acme/app to #dev.",
      ["list issues of a github repository", "post a message to a slack channel"], """
const issues = await tools.github.list_issues({owner: "acme", repo: "app"});
const bugs = issues.filter(i => i.labels.some(l => l.name === "bug")).map(i => `#${i.number} ${i.title}`);
await tools.slack.slack_post_message({channel_id: "C0001", text: bugs.join("\\n")});
return bugs.length;""")
def _(call):
    bugs = [f"#{i['number']} {i['title']}" for i in call("github__list_issues", REPO) if "bug" in labels(i)]
    call("slack__slack_post_message", {"channel_id": "C0001", "text": "\n".join(bugs)})
    return len(bugs)


@task("sentry-top-to-github", "File GitHub issues for the two Sentry issues of acme with the most events.",
      ["search sentry issues", "create a github issue"], """
const found = await tools.sentry.search_issues({organizationSlug: "acme"});
const top = found.sort((a, b) => b.count - a.count).slice(0, 2);
for (const s of top) {
  await tools.github.create_issue({owner: "acme", repo: "app", title: `Sentry ${s.shortId}: ${s.title}`, body: s.permalink});
}
return top.map(s => s.shortId);""")
def _(call):
    top = sorted(call("sentry__search_issues", {"organizationSlug": "acme"}), key=lambda s: -s["count"])[:2]
    for s in top:
        call("github__create_issue", {**REPO, "title": f"Sentry {s['shortId']}: {s['title']}", "body": s["permalink"]})
    return [s["shortId"] for s in top]


@task("top-poster-profile", "Who posted most in #dev, and what is their title?",
      ["slack channel history", "get a slack user's profile"], """
const {messages} = await tools.slack.slack_get_channel_history({channel_id: "C0001"});
const counts = {};
for (const m of messages) counts[m.user] = (counts[m.user] || 0) + 1;
const top = Object.keys(counts).sort((a, b) => counts[b] - counts[a] || a.localeCompare(b))[0];
const {profile} = await tools.slack.slack_get_user_profile({user_id: top});
return `${profile.real_name}, ${profile.title}`;""")
def _(call):
    counts = Counter(m["user"] for m in call("slack__slack_get_channel_history", {"channel_id": "C0001"})["messages"])
    top = sorted(counts, key=lambda u: (-counts[u], u))[0]
    profile = call("slack__slack_get_user_profile", {"user_id": top})["profile"]
    return f"{profile['real_name']}, {profile['title']}"


@task("linear-escalate", "Comment 'Escalated' on every urgent (priority 1) Linear issue in Todo.",
      ["search linear issues", "comment on a linear issue"], """
const issues = await tools.linear.linear_search_issues({});
const urgent = issues.filter(i => i.priority === 1 && i.status === "Todo");
await Promise.all(urgent.map(i => tools.linear.linear_add_comment({issueId: i.id, body: "Escalated"})));
return urgent.map(i => i.identifier);""")
def _(call):
    urgent = [i for i in call("linear__linear_search_issues", {}) if i["priority"] == 1 and i["status"] == "Todo"]
    for i in urgent:
        call("linear__linear_add_comment", {"issueId": i["id"], "body": "Escalated"})
    return [i["identifier"] for i in urgent]


@task("top-customers", "Post the three customers with the most paid revenue to #sales.",
      ["run a sql query on postgres", "post a message to a slack channel"], """
const orders = await tools.postgres.query({sql: "select * from orders"});
const totals = {};
for (const o of orders) if (o.status === "paid") totals[o.customer] = (totals[o.customer] || 0) + o.amount;
const top = Object.entries(totals).sort((a, b) => b[1] - a[1]).slice(0, 3);
await tools.slack.slack_post_message({channel_id: "C0007", text: top.map(([c, t]) => `${c}: ${t}`).join(", ")});
return top;""")
def _(call):
    totals: dict[str, int] = defaultdict(int)
    for o in call("postgres__query", {"sql": "select * from orders"}):
        if o["status"] == "paid":
            totals[o["customer"]] += o["amount"]
    top = sorted(totals.items(), key=lambda kv: -kv[1])[:3]
    call("slack__slack_post_message", {"channel_id": "C0007", "text": ", ".join(f"{c}: {t}" for c, t in top)})
    return [list(kv) for kv in top]


@task("airtable-hours", "Sum the hours of Done tasks per owner in Airtable and post them to #standup.",
      ["list airtable records", "post a message to a slack channel"], """
const records = await tools.airtable.list_records({baseId: "appAcme", tableId: "tblTasks"});
const hours = {};
for (const r of records) if (r.fields.Status === "Done") hours[r.fields.Owner] = (hours[r.fields.Owner] || 0) + r.fields.Hours;
await tools.slack.slack_post_message({channel_id: "C0009", text: JSON.stringify(hours)});
return hours;""")
def _(call):
    hours: dict[str, int] = {}
    for r in call("airtable__list_records", {"baseId": "appAcme", "tableId": "tblTasks"}):
        if r["fields"]["Status"] == "Done":
            hours[r["fields"]["Owner"]] = hours.get(r["fields"]["Owner"], 0) + r["fields"]["Hours"]
    call("slack__slack_post_message", {"channel_id": "C0009", "text": json.dumps(hours, separators=(",", ":"))})
    return hours


@task("prs-without-reviewers", "Ask for a reviewer on every open non-draft PR of acme/app that has none.",
      ["list pull requests of a github repository", "comment on a github issue"], """
const pulls = await tools.github.list_pull_requests({owner: "acme", repo: "app"});
const lonely = pulls.filter(p => !p.draft && p.requested_reviewers.length === 0);
await Promise.all(lonely.map(p => tools.github.add_issue_comment({owner: "acme", repo: "app", issue_number: p.number, body: "Needs a reviewer"})));
return lonely.map(p => p.number);""")
def _(call):
    lonely = [p for p in call("github__list_pull_requests", REPO) if not p["draft"] and not p["requested_reviewers"]]
    for p in lonely:
        call("github__add_issue_comment", {**REPO, "issue_number": p["number"], "body": "Needs a reviewer"})
    return [p["number"] for p in lonely]


@task("commit-authors-on-slack", "Which Slack users authored the last commits of acme/app?",
      ["list commits of a github repository", "list slack users"], """
const commits = await tools.github.list_commits({owner: "acme", repo: "app"});
const names = new Set(commits.map(c => c.commit.author.name.toLowerCase()));
const {members} = await tools.slack.slack_get_users({});
return members.filter(m => names.has(m.name)).map(m => m.id).sort();""")
def _(call):
    names = {c["commit"]["author"]["name"].lower() for c in call("github__list_commits", REPO)}
    return sorted(m["id"] for m in call("slack__slack_get_users", {})["members"] if m["name"] in names)


@task("release-issue", "Open a release issue for the version in /srv/app/package.json.",
      ["read a text file", "create a github issue"], """
const [text] = await tools.filesystem.read_text_file({path: "/srv/app/package.json"});
const {version} = JSON.parse(text);
await tools.github.create_issue({owner: "acme", repo: "app", title: `Release v${version}`});
return version;""")
def _(call):
    version = json.loads(call("filesystem__read_text_file", {"path": "/srv/app/package.json"})[0])["version"]
    call("github__create_issue", {**REPO, "title": f"Release v{version}"})
    return version


@task("rust-people", "Note 'Rust reviewer' on every person in the knowledge graph who writes Rust.",
      ["read the knowledge graph", "add observations to entities"], """
const {entities} = await tools.memory.read_graph({});
const rust = entities.filter(e => e.entityType === "person" && e.observations.includes("Writes Rust")).map(e => e.name);
await tools.memory.add_observations({observations: rust.map(n => ({entityName: n, contents: ["Rust reviewer"]}))});
return rust;""")
def _(call):
    rust = [e["name"] for e in call("memory__read_graph", {})["entities"]
            if e["entityType"] == "person" and "Writes Rust" in e["observations"]]
    call("memory__add_observations", {"observations": [{"entityName": n, "contents": ["Rust reviewer"]} for n in rust]})
    return rust


@task("fix-commits", "Count the fix commits in /srv/app's log and post the count to #dev.",
      ["show the git commit log", "post a message to a slack channel"], """
const [log] = await tools.git.git_log({repo_path: "/srv/app"});
const fixes = log.split("\\n").filter(l => l.startsWith("Message: fix")).length;
await tools.slack.slack_post_message({channel_id: "C0001", text: `${fixes} fixes this month`});
return fixes;""")
def _(call):
    log = call("git__git_log", {"repo_path": "/srv/app"})[0]
    fixes = sum(1 for line in log.split("\n") if line.startswith("Message: fix"))
    call("slack__slack_post_message", {"channel_id": "C0001", "text": f"{fixes} fixes this month"})
    return fixes


@task("assign-fatal", "Assign every fatal Sentry issue of acme to the SRE team.",
      ["search sentry issues", "update a sentry issue"], """
const found = await tools.sentry.search_issues({organizationSlug: "acme"});
const fatal = found.filter(s => s.level === "fatal");
await Promise.all(fatal.map(s => tools.sentry.update_issue({issueId: s.shortId, assignedTo: "team:sre"})));
return fatal.map(s => s.shortId);""")
def _(call):
    fatal = [s for s in call("sentry__search_issues", {"organizationSlug": "acme"}) if s["level"] == "fatal"]
    for s in fatal:
        call("sentry__update_issue", {"issueId": s["shortId"], "assignedTo": "team:sre"})
    return [s["shortId"] for s in fatal]


@task("post-to-releases", "Announce release 3.14.2 in the Slack channel named releases.",
      ["list slack channels", "post a message to a slack channel"], """
const {channels} = await tools.slack.slack_list_channels({});
const releases = channels.find(c => c.name === "releases");
await tools.slack.slack_post_message({channel_id: releases.id, text: "Released 3.14.2"});
return releases.id;""")
def _(call):
    releases = next(c for c in call("slack__slack_list_channels", {})["channels"] if c["name"] == "releases")
    call("slack__slack_post_message", {"channel_id": releases["id"], "text": "Released 3.14.2"})
    return releases["id"]


@task("ping-assignee", "Tell the assignee of acme/app#7 on Slack that it is urgent.",
      ["get a github issue", "list slack users", "post a message to a slack channel"], """
const issue = await tools.github.get_issue({owner: "acme", repo: "app", issue_number: 7});
const {members} = await tools.slack.slack_get_users({});
const user = members.find(m => m.profile.github === issue.assignee.login);
await tools.slack.slack_post_message({channel_id: user.id, text: `#7 ${issue.title} is urgent`});
return user.id;""")
def _(call):
    issue = call("github__get_issue", {**REPO, "issue_number": 7})
    user = next(m for m in call("slack__slack_get_users", {})["members"] if m["profile"]["github"] == issue["assignee"]["login"])
    call("slack__slack_post_message", {"channel_id": user["id"], "text": f"#7 {issue['title']} is urgent"})
    return user["id"]


@task("label-report", "How many open issues and PRs does acme/app have per label, and how many PRs are drafts?",
      ["list issues of a github repository", "list pull requests of a github repository"], """
const [issues, pulls] = await Promise.all([
  tools.github.list_issues({owner: "acme", repo: "app"}),
  tools.github.list_pull_requests({owner: "acme", repo: "app"})]);
const perLabel = {};
for (const i of issues) for (const l of i.labels) perLabel[l.name] = (perLabel[l.name] || 0) + 1;
return {perLabel, drafts: pulls.filter(p => p.draft).length};""")
def _(call):
    per_label = Counter(name for i in call("github__list_issues", REPO) for name in labels(i))
    drafts = sum(1 for p in call("github__list_pull_requests", REPO) if p["draft"])
    return {"perLabel": dict(per_label), "drafts": drafts}


@task("fatal-to-linear", "Open a Linear issue in team ENG for each fatal Sentry issue of acme.",
      ["search sentry issues", "create a linear issue"], """
const found = await tools.sentry.search_issues({organizationSlug: "acme"});
const fatal = found.filter(s => s.level === "fatal");
for (const s of fatal) await tools.linear.linear_create_issue({teamId: "ENG", title: s.title, description: s.permalink, priority: 1});
return fatal.length;""")
def _(call):
    fatal = [s for s in call("sentry__search_issues", {"organizationSlug": "acme"}) if s["level"] == "fatal"]
    for s in fatal:
        call("linear__linear_create_issue", {"teamId": "ENG", "title": s["title"], "description": s["permalink"], "priority": 1})
    return len(fatal)


@task("standup-time", "Post the Berlin standup time in New York time to #standup.",
      ["get the current time in a timezone", "convert a time between timezones", "post a message to a slack channel"], """
const now = await tools.time.get_current_time({timezone: "Europe/Berlin"});
const ny = await tools.time.convert_time({source_timezone: "Europe/Berlin", time: now.datetime.slice(11, 16), target_timezone: "America/New_York"});
await tools.slack.slack_post_message({channel_id: "C0009", text: `Standup at ${ny.target.datetime.slice(11, 16)} New York`});
return ny.target.datetime.slice(11, 16);""")
def _(call):
    now = call("time__get_current_time", {"timezone": "Europe/Berlin"})
    ny = call("time__convert_time", {"source_timezone": "Europe/Berlin", "time": now["datetime"][11:16], "target_timezone": "America/New_York"})
    call("slack__slack_post_message", {"channel_id": "C0009", "text": f"Standup at {ny['target']['datetime'][11:16]} New York"})
    return ny["target"]["datetime"][11:16]


@task("largest-sources", "Post the three largest files in /srv/app/src to #dev.",
      ["list a directory with file sizes", "post a message to a slack channel"], """
const files = await tools.filesystem.list_directory_with_sizes({path: "/srv/app/src"});
const largest = files.sort((a, b) => b.size - a.size).slice(0, 3).map(f => f.name);
await tools.slack.slack_post_message({channel_id: "C0001", text: largest.join(", ")});
return largest;""")
def _(call):
    files = call("filesystem__list_directory_with_sizes", {"path": "/srv/app/src"})
    largest = [f["name"] for f in sorted(files, key=lambda f: -f["size"])[:3]]
    call("slack__slack_post_message", {"channel_id": "C0001", "text": ", ".join(largest)})
    return largest


@task("pending-and-todo", "How many orders are pending, and how many Airtable tasks are still Todo?",
      ["run a sql query on postgres", "list airtable records"], """
const [orders, records] = await Promise.all([
  tools.postgres.query({sql: "select * from orders"}),
  tools.airtable.list_records({baseId: "appAcme", tableId: "tblTasks"})]);
return {pending: orders.filter(o => o.status === "pending").length,
        todo: records.filter(r => r.fields.Status === "Todo").length};""")
def _(call):
    orders = call("postgres__query", {"sql": "select * from orders"})
    records = call("airtable__list_records", {"baseId": "appAcme", "tableId": "tblTasks"})
    return {"pending": sum(1 for o in orders if o["status"] == "pending"),
            "todo": sum(1 for r in records if r["fields"]["Status"] == "Todo")}


@task("project-members", "Who works on the projects in the knowledge graph? Open their nodes.",
      ["search nodes in the knowledge graph", "open nodes of the knowledge graph by name"], """
const {entities, relations} = await tools.memory.search_nodes({query: "project"});
const projects = new Set(entities.map(e => e.name));
const members = relations.filter(r => projects.has(r.to)).map(r => r.from).sort();
const opened = await tools.memory.open_nodes({names: members});
return {members, opened: opened.entities.length};""")
def _(call):
    found = call("memory__search_nodes", {"query": "project"})
    projects = {e["name"] for e in found["entities"]}
    members = sorted(r["from"] for r in found["relations"] if r["to"] in projects)
    opened = call("memory__open_nodes", {"names": members})
    return {"members": members, "opened": len(opened["entities"])}


@task("bug-authors-profiles", "List the Slack titles of the people who reported auth bugs in acme/app.",
      ["list issues of a github repository", "list slack users"], """
const issues = await tools.github.list_issues({owner: "acme", repo: "app"});
const reporters = new Set(issues.filter(i => i.labels.some(l => l.name === "auth")).map(i => i.user.login));
const {members} = await tools.slack.slack_get_users({});
return members.filter(m => reporters.has(m.profile.github)).map(m => `${m.name}: ${m.profile.title}`).sort();""")
def _(call):
    reporters = {i["user"]["login"] for i in call("github__list_issues", REPO) if "auth" in labels(i)}
    return sorted(f"{m['name']}: {m['profile']['title']}" for m in call("slack__slack_get_users", {})["members"]
                  if m["profile"]["github"] in reporters)
