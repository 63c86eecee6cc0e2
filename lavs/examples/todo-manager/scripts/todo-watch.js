// The todo example's subscription: one line per todo added after it starts, each printed once.
const fs = require("fs");
const path = require("path");
const file = path.join("data", "todos.json");
const count = () => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : []);
let seen = count().length;
setInterval(() => {
  let todos;
  try { todos = count(); } catch { return; }
  for (const todo of todos.slice(seen)) console.log(JSON.stringify({ type: "todoAdded", todo }));
  seen = Math.max(seen, todos.length);
}, 100);
