import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { Pager, type PageInfo } from "@/components/Pager";

const html = (page: number, data: PageInfo | undefined) => renderToStaticMarkup(<Pager page={page} data={data} noun="runs" onPage={() => {}} />);

/** Clicks a rendered Pager's button (it has no hooks, so calling it renders it) and returns the page it asked for. */
function click(label: "Previous" | "Next", page: number, data: PageInfo): number | undefined {
  let asked: number | undefined;
  const nav = Pager({ page, data, noun: "runs", onPage: (p) => (asked = p) }) as ReactElement<{ children: ReactElement<{ onClick?: () => void; children: string }>[] }>;
  nav.props.children.find((c) => c.props.children === label)?.props.onClick?.();
  return asked;
}

describe("Pager", () => {
  it("shows nothing while loading or when everything fits on one page", () => {
    expect(html(1, undefined)).toBe("");
    expect(html(1, { count: 3, next: null, previous: null })).toBe("");
  });

  it("names the page and the total, and disables the way that does not exist", () => {
    const first = html(1, { count: 120, next: "/api/v1/…?page=2", previous: null });
    expect(first).toContain("Page 1 · 120 runs");
    expect(first).toMatch(/<button[^>]*disabled=""[^>]*>Previous<\/button>/);
    expect(first).not.toMatch(/<button[^>]*disabled=""[^>]*>Next<\/button>/);
    const last = html(3, { count: 120, next: null, previous: "/api/v1/…?page=2" });
    expect(last).toMatch(/<button[^>]*disabled=""[^>]*>Next<\/button>/);
    expect(last).not.toMatch(/<button[^>]*disabled=""[^>]*>Previous<\/button>/);
  });

  it("asks for the page before and after the one shown", () => {
    const middle = { count: 120, next: "/api/v1/…?page=3", previous: "/api/v1/…?page=1" };
    expect(click("Previous", 2, middle)).toBe(1);
    expect(click("Next", 2, middle)).toBe(3);
  });
});
