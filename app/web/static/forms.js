// A generic form from a JSON schema (pydantic's): one field per property; scalars get inputs,
// enums selects, anything structured a JSON text box. Returns {node, value()}.

function resolve(schema, root) {
  if (schema && schema.$ref) {
    const name = schema.$ref.split("/").pop();
    return ((root && root.$defs) || {})[name] || {};
  }
  return schema || {};
}

function scalarType(s) {
  if (s.anyOf) {
    const nonNull = s.anyOf.filter((x) => x.type !== "null");
    if (nonNull.length === 1) return { ...nonNull[0], nullable: true };
  }
  return s;
}

// choices: {field name: [[value, label], ...]} -- a string field with choices (a zone, a unit,
// a target) is a menu of them instead of free text.
export function schemaForm(schema, prefill, idPrefix, choices) {
  const root = schema;
  const wrap = document.createElement("div");
  const getters = {};
  const props = schema.properties || {};
  const required = new Set(schema.required || []);
  for (const [name, raw] of Object.entries(props)) {
    const s = scalarType(resolve(raw, root));
    if (s.const !== undefined) {
      getters[name] = () => s.const;
      continue;
    }
    const id = `${idPrefix}-${name}`;
    const label = document.createElement("label");
    label.setAttribute("for", id);
    label.textContent = `${s.title || raw.title || name}${required.has(name) ? " *" : ""}`;
    const help = raw.description || s.description;
    // ``code`` in a description reads as plain text in a tooltip
    if (help) label.title = help.replace(/``([^`]+)``/g, "$1");
    let input;
    const pre = prefill && prefill[name] !== undefined ? prefill[name] : raw.default;
    if (s.enum) {
      input = document.createElement("select");
      if (!required.has(name)) input.appendChild(new Option("", ""));
      for (const v of s.enum) input.appendChild(new Option(String(v), String(v)));
      if (pre !== undefined && pre !== null) input.value = String(pre);
      getters[name] = () => (input.value === "" ? undefined : input.value);
    } else if (s.type === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = Boolean(pre);
      getters[name] = () => input.checked;
    } else if (s.type === "integer" || s.type === "number") {
      input = document.createElement("input");
      input.type = "number";
      if (s.type === "number") input.step = "any";
      if (pre !== undefined && pre !== null) input.value = String(pre);
      getters[name] = () => (input.value === "" ? (s.nullable ? null : undefined) : Number(input.value));
    } else if (s.type === "string" && choices && (choices[name] || []).length) {
      input = document.createElement("select");
      input.appendChild(new Option(required.has(name) ? "— pick —" : "", ""));
      for (const [v, text] of choices[name]) input.appendChild(new Option(text, v));
      if (pre !== undefined && pre !== null) input.value = String(pre);
      getters[name] = () => (input.value === "" ? (s.nullable ? null : undefined) : input.value);
    } else if (s.type === "string") {
      input = document.createElement("input");
      if (pre !== undefined && pre !== null) input.value = String(pre);
      getters[name] = () => (input.value === "" ? (s.nullable ? null : undefined) : input.value);
    } else {
      input = document.createElement("textarea");
      input.rows = 3;
      input.placeholder = "JSON";
      if (pre !== undefined && pre !== null) input.value = JSON.stringify(pre);
      getters[name] = () => {
        if (!input.value.trim()) return undefined;
        return JSON.parse(input.value);
      };
    }
    input.id = id;
    input.name = name;
    const row = document.createElement("div");
    row.className = "form-row";
    row.append(label, input);
    if (help) {
      // the field's help as text under it (``code`` and `code` shown as code), read out with it
      const note = document.createElement("div");
      note.className = "field-help";
      note.id = `${id}-help`;
      String(help).split(/``([^`]+)``|`([^`]+)`/).forEach((part, i) => {
        if (part === undefined) return;
        if (i % 3 === 0) note.append(part);
        else {
          const code = document.createElement("code");
          code.textContent = part;
          note.append(code);
        }
      });
      input.setAttribute("aria-describedby", note.id);
      row.append(note);
    }
    wrap.appendChild(row);
  }
  return {
    node: wrap,
    value() {
      const out = {};
      for (const [k, g] of Object.entries(getters)) {
        const v = g();
        if (v !== undefined) out[k] = v;
      }
      return out;
    },
  };
}
