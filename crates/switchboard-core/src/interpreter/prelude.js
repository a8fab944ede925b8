// What a code mode script sees besides the language's own objects: `tools`,
// `callTool` and `console`. Evaluated once per run before the script, with
// the two host functions as arguments; the host functions are reachable only
// through the closures below.
(function (hostCall, hostLog) {
  "use strict";
  const lineOf = (stack) => {
    const m = /script\.js:(\d+)/.exec(String(stack || ""));
    return m ? Number(m[1]) : 0;
  };
  const callerLine = () => lineOf(new Error().stack);
  const withLine = (error, line) => {
    if (line) error.scriptLine = line;
    return error;
  };
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return String(value);
    try {
      const text = JSON.stringify(value);
      return text === undefined ? String(value) : text;
    } catch (_) {
      return String(value);
    }
  };
  const log = (level) => (...args) => { hostLog(level, args.map(show).join(" ")); };
  const console = Object.freeze({
    log: log("log"), info: log("info"), debug: log("debug"),
    warn: log("warn"), error: log("error"),
  });
  const textOf = (result) => (Array.isArray(result.content) ? result.content : [])
    .filter((c) => c && c.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n");
  async function invoke(name, args, raw, line) {
    if (args === undefined || args === null) args = {};
    if (typeof args !== "object" || Array.isArray(args)) {
      throw withLine(new TypeError(`${name}: the arguments must be an object`), line);
    }
    let result;
    try {
      result = JSON.parse(await hostCall(name, JSON.stringify(args), line));
    } catch (e) {
      throw withLine(new Error(e && e.message !== undefined ? e.message : String(e)), line);
    }
    if (raw) return result;
    if (result.isError) throw withLine(new Error(textOf(result) || `${name} failed`), line);
    if (result.structuredContent !== undefined && result.structuredContent !== null) {
      return result.structuredContent;
    }
    const text = textOf(result);
    try {
      return JSON.parse(text);
    } catch (_) {
      return text;
    }
  }
  const callTool = (name, args) => {
    if (typeof name !== "string") throw new TypeError("callTool: the tool name must be a string");
    return invoke(name, args, true, callerLine());
  };
  const noThen = (key) => typeof key !== "string" || key === "then";
  const server = (prefix) => new Proxy(Object.create(null), {
    get(_, tool) {
      if (noThen(tool)) return undefined;
      return (args) => invoke(`${prefix}__${tool}`, args, false, callerLine());
    },
  });
  const tools = new Proxy(Object.create(null), {
    get(_, prefix) { return noThen(prefix) ? undefined : server(prefix); },
  });
  return { tools, callTool, console, lineOf };
})
