"""A horizontal bar chart of ratios as SVG, with the Python standard library only."""
from xml.sax.saxutils import escape

ROW, LABEL, WIDTH, PAD = 22, 330, 360, 12


def bar_chart(title, sections, subtitle=""):
    """`sections`: [(heading, [(label, value, goal or None)])]. Returns the SVG text.
    Each section is scaled on its own, with a dashed line at 1.0 and a tick at each goal."""
    rows = sum(len(bars) + 1 for _, bars in sections)
    height = 56 + rows * ROW + PAD
    total = LABEL + WIDTH + 70
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{total}" height="{height}" fill="white"/>',
           f'<text x="{PAD}" y="20" font-size="15" font-weight="bold">{escape(title)}</text>',
           f'<text x="{PAD}" y="38" fill="#555">{escape(subtitle)}</text>']
    y = 56
    for heading, bars in sections:
        out.append(f'<text x="{PAD}" y="{y + 14}" font-weight="bold">{escape(heading)}</text>')
        y += ROW
        top = max([1.0] + [value for _, value, _ in bars] + [goal or 0 for _, _, goal in bars]) * 1.1
        scale = WIDTH / top
        first = y
        for label, value, goal in bars:
            met = goal is None or value >= goal
            colour = "#4c78a8" if met else "#e45756"
            out.append(f'<text x="{LABEL - 6}" y="{y + 14}" text-anchor="end">{escape(label)}</text>')
            out.append(f'<rect x="{LABEL}" y="{y + 3}" width="{value * scale:.1f}" height="{ROW - 7}" fill="{colour}"/>')
            out.append(f'<text x="{LABEL + value * scale + 4:.1f}" y="{y + 14}">{value:.2f}x</text>')
            if goal:
                gx = LABEL + goal * scale
                out.append(f'<line x1="{gx:.1f}" x2="{gx:.1f}" y1="{y + 1}" y2="{y + ROW - 2}" stroke="black" stroke-width="2"/>')
            y += ROW
        one = LABEL + scale
        out.append(f'<line x1="{one:.1f}" x2="{one:.1f}" y1="{first}" y2="{y}" stroke="#888" stroke-dasharray="4 3"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
