import { createElement as h } from "react";
import { renderToString } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { SortableHeader, TableEmpty } from "./table";

function render(url: string, node: React.ReactNode) {
  return renderToString(
    h(MemoryRouter, { initialEntries: [url] }, h("table", null, h("thead", null, h("tr", null, node)))),
  );
}

describe("SortableHeader", () => {
  // A cursor belongs to one order: a new sort starts from its first page.
  it("says the current order and links to the reverse, keeping filters and leaving the page", () => {
    const html = render(
      "/users?q=ada&sort=name&dir=asc&page=3&after=abc&before=def",
      h(SortableHeader, { column: "name" }, "Name"),
    );
    expect(html).toContain('aria-sort="ascending"');
    expect(html).toContain('href="/users?q=ada&amp;sort=name&amp;dir=desc"');
  });

  it("marks other columns unsorted and sorts them ascending first", () => {
    const html = render("/users?sort=name&dir=asc", h(SortableHeader, { column: "email" }, "Email"));
    expect(html).toContain('aria-sort="none"');
    expect(html).toContain('href="/users?sort=email&amp;dir=asc"');
  });

  it("reads the default column and direction when the URL names none", () => {
    const html = render(
      "/users",
      h(
        SortableHeader,
        {
          column: "created_at",
          defaultSort: "created_at",
          defaultDirection: "desc",
        },
        "Joined",
      ),
    );
    expect(html).toContain('aria-sort="descending"');
    expect(html).toContain('href="/users?sort=created_at&amp;dir=asc"');
  });
});

describe("TableEmpty", () => {
  it("spans every column", () => {
    const html = renderToString(
      h("table", null, h("tbody", null, h(TableEmpty, { colSpan: 5 }, "No users"))),
    );
    expect(html).toContain('colSpan="5"');
  });
});
