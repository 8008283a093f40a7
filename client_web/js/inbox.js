// The server's pushes, handed to their handler through this small port: the connection (actions.js)
// delivers them, app.js names the handler (pushes.js `receive`). The handler draws the table and the
// chat, which call the actions: were actions.js to import it, eight modules would form one circle.

let handler = null;
const waiting = [];

/** A push from the server, to the handler (kept, in order, until one is named). */
export function deliver(message) {
  if (handler) handler(message);
  else waiting.push(message);
}

/** Name the handler of every push (those that came before it first). */
export function handlePushesWith(receive) {
  handler = receive;
  while (waiting.length) receive(waiting.shift());
}
