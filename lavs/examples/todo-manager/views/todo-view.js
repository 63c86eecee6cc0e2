// The todo example's view component (LAVS v1 §7.3): a custom element that gets a LAVSClient,
// lists the todos, adds one, and shows each todo added elsewhere as it arrives (todoUpdates).
// Text from the service is set with textContent, never as HTML.
class TodoView extends HTMLElement {
  connectedCallback() {
    this.todos = this.todos || [];
    this.render();
  }

  setLAVSClient(client) {
    this.client = client;
    this.init();
  }

  async init() {
    try {
      this.todos = await this.client.call("listTodos");
    } catch (error) {
      this.problem = error.message;
    }
    this.dataset.ready = "yes";
    this.client.subscribe("todoUpdates", (update) => {
      if (update && update.type === "todoAdded" && !this.todos.some((t) => t.id === update.todo.id)) {
        this.todos.push(update.todo);
        this.render();
      }
    });
    this.render();
  }

  async addTodo(text) {
    try {
      const added = await this.client.call("addTodo", { text, priority: 1 });
      if (!this.todos.some((t) => t.id === added.id)) this.todos.push(added);
      this.problem = null;
    } catch (error) {
      this.problem = error.message;
    }
    this.render();
  }

  // The form is built once, so a push that redraws the list never wipes what the user is typing.
  render() {
    if (!this.list) {
      this.heading = document.createElement("h3");
      this.list = document.createElement("ul");
      this.list.className = "todo-list";
      const form = document.createElement("form");
      const input = document.createElement("input");
      input.name = "text";
      input.placeholder = "A new todo";
      input.setAttribute("aria-label", "A new todo");
      const add = document.createElement("button");
      add.type = "submit";
      add.textContent = "Add";
      form.append(input, add);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const text = input.value.trim();
        input.value = "";
        if (text) this.addTodo(text);
      });
      this.problemLine = document.createElement("p");
      this.problemLine.className = "problem";
      this.append(this.heading, this.list, form, this.problemLine);
    }
    this.heading.textContent = `Todos (${this.todos.length})`;
    this.list.replaceChildren(
      ...this.todos.map((todo) => {
        const item = document.createElement("li");
        item.className = "todo-item";
        item.textContent = `${todo.done ? "✓ " : ""}${todo.text}`;
        return item;
      }),
    );
    this.problemLine.textContent = this.problem || "";
  }
}

customElements.define("todo-view", TodoView);
