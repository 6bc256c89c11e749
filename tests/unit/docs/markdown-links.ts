/** A link or image of a Markdown file: its target as written and the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/**
 * The relative links and images of a Markdown text (`[text](target)`, `![alt](target)`, `[text]: target`), outside
 * code fences and inline code. Absolute URLs (`https:`, `mailto:` …) are left out: only files of the repository are
 * checked here.
 */
export function listRelativeLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  let inFence = false;
  markdown.split("\n").forEach((raw, index) => {
    if (/^\s*(```|~~~)/.test(raw)) {
      inFence = !inFence;
      return;
    }
    if (inFence) return;
    const line = raw.replace(/`[^`]*`/g, "``");
    const targets = [
      ...[...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s+(\S+)/g)].map((m) => m[1]!),
    ];
    for (const target of targets) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, line: index + 1 });
    }
  });
  return links;
}

/**
 * The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as `-`, and `-1`, `-2`
 * … for a repeated heading.
 */
export function listHeadingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}
