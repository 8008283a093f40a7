// A tiny element builder, h("div", {class: "x", onclick}, child, "text", ...), and `morph`, which
// brings a part of the page to a newly built tree in place: an element that is still there keeps its
// identity (a button under the pointer, the focus, a card being animated), so that the redraws the
// other seats cause several times a second never lose a press (docs/client.md, "Drawing").

/** Build an element. Attributes starting with "on" become listeners; null/false attributes are skipped. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") on(el, name.slice(2), value);
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

/** What an element does on `type`: one handler per type, which `morph` hands on to the element kept. */
export function on(el, type, handler) {
  const handlers = handlersOf(el);
  if (!(type in handlers)) el.addEventListener(type, dispatch);
  handlers[type] = handler;
}

const HANDLERS = new WeakMap();

function handlersOf(el) {
  let handlers = HANDLERS.get(el);
  if (!handlers) {
    handlers = {};
    HANDLERS.set(el, handlers);
  }
  return handlers;
}

function dispatch(event) {
  const handler = HANDLERS.get(event.currentTarget)?.[event.type];
  return handler ? handler.call(event.currentTarget, event) : undefined;
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

/**
 * Make the children of `el` those given, changing the page as little as it takes: elements of the
 * same tag and key (`id`, `data-key`, `data-card` or `data-seat`) are kept and brought up to date
 * (attributes, handlers, form values the state changed, children); the rest is inserted or removed.
 * Handlers must read the page through their event (`event.currentTarget`), never through an element
 * of the tree built for this call, which is thrown away.
 */
export function morph(el, ...children) {
  const wanted = [];
  collect(wanted, children);
  morphChildren(el, wanted);
  return el;
}

function collect(into, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) collect(into, child);
    else into.push(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return "";
  const key = node.id || node.dataset.key || node.dataset.card || node.dataset.seat || "";
  return key ? `${node.tagName}#${key}` : "";
}

function sameKind(a, b) {
  if (a.nodeType !== b.nodeType) return false;
  if (a.nodeType !== Node.ELEMENT_NODE) return true;
  return a.tagName === b.tagName && (a.tagName !== "INPUT" || a.type === b.type);
}

function morphChildren(parent, wanted) {
  const keyed = new Map();
  for (const child of parent.children) {
    const key = keyOf(child);
    if (key) keyed.set(key, child);
  }
  let cursor = parent.firstChild;
  for (const node of wanted) {
    const key = keyOf(node);
    let kept = null;
    if (key) {
      kept = keyed.get(key) ?? null;
      keyed.delete(key);
    } else if (cursor && !keyOf(cursor) && sameKind(cursor, node)) {
      kept = cursor;
    }
    if (kept && sameKind(kept, node)) {
      if (kept === cursor) cursor = cursor.nextSibling;
      else parent.insertBefore(kept, cursor);
      morphNode(kept, node);
    } else {
      parent.insertBefore(node, cursor);
    }
  }
  while (cursor) {
    const next = cursor.nextSibling;
    cursor.remove();
    cursor = next;
  }
}

function morphNode(old, next) {
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    return;
  }
  const changed = morphAttributes(old, next);
  morphHandlers(old, next);
  morphFormValue(old, next, changed);
  clearFinishedAnimations(old);
  morphChildren(old, [...next.childNodes]);
}

/** Bring the attributes over; the names of those that changed. A kept `<details>` stays open or
 * closed as the player left it (a redraw never folds a list they opened). */
function morphAttributes(old, next) {
  const changed = new Set();
  const playerOwned = old.tagName === "DETAILS" ? "open" : null;
  for (const { name } of [...old.attributes]) {
    if (name === playerOwned) continue;
    if (!next.hasAttribute(name)) {
      old.removeAttribute(name);
      changed.add(name);
    }
  }
  for (const { name, value } of next.attributes) {
    if (name === playerOwned || old.getAttribute(name) === value) continue;
    // Styles go through the CSSOM: the page's Content-Security-Policy refuses inline style attributes.
    if (name === "style") old.style.cssText = next.style.cssText;
    else old.setAttribute(name, value);
    changed.add(name);
  }
  return changed;
}

function morphHandlers(old, next) {
  const handlers = handlersOf(old);
  const wanted = HANDLERS.get(next) || {};
  for (const type of Object.keys(handlers)) if (!(type in wanted)) handlers[type] = null;
  for (const [type, handler] of Object.entries(wanted)) on(old, type, handler);
}

/** A form value follows the state only when the state changed it: what the player typed stays. */
function morphFormValue(old, next, changed) {
  if (changed.has("value") && "value" in old && old.value !== next.value) old.value = next.value;
  if (changed.has("checked") && "checked" in old) old.checked = next.checked;
  if (changed.has("selected") && "selected" in old) old.selected = next.selected;
}

/** A finished animation that holds its last frame (a trick swept away) must not stay on a kept element. */
function clearFinishedAnimations(el) {
  if (!el.getAnimations) return;
  for (const animation of el.getAnimations()) {
    const scripted = !(globalThis.CSSAnimation && animation instanceof CSSAnimation)
      && !(globalThis.CSSTransition && animation instanceof CSSTransition);
    if (scripted && animation.playState === "finished" && animation.effect?.target === el) animation.cancel();
  }
}
