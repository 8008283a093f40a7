// A tiny element builder: h("div", {class: "x", onclick}, child, "text", ...).

/** Build an element. Attributes starting with "on" become listeners; null/false attributes are skipped. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name === "dataset") {
      for (const [key, data] of Object.entries(value)) if (data !== null && data !== undefined && data !== false) el.dataset[key] = data;
    }
    else if (name === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace every child of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}
