// The todo example's handler (spec section 4.7): todos in data/todos.json.
const fs = require("fs");
const path = require("path");
const file = path.join("data", "todos.json");
const load = () => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : []);
const save = (todos) => {
  fs.mkdirSync("data", { recursive: true });
  fs.writeFileSync(file + ".partial", JSON.stringify(todos));
  fs.renameSync(file + ".partial", file);
};
const action = process.argv[2];
if (action === "list") {
  console.log(JSON.stringify(load()));
} else if (action === "add") {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const todos = load();
  const todo = { id: todos.length + 1, text: input.text, done: false, priority: input.priority, createdAt: new Date().toISOString() };
  todos.push(todo);
  save(todos);
  console.log(JSON.stringify(todo));
} else {
  console.error(`unknown action ${action}`);
  process.exit(2);
}
