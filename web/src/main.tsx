import { render } from "preact";
import { App } from "./app.tsx";
import "./styles/base.css";
import "./styles/pages.css";

const root = document.getElementById("app");
if (root) {
  // A page the Worker answered for a room that has ended carries readable words in the root for
  // clients that run no script; the console draws its own page instead.
  root.replaceChildren();
  render(<App />, root);
}
