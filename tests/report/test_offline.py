"""Remote scripts are stripped from outputs, and any web reference left in a page is found."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pixops.report import remote_references, strip_remote_scripts

PLOTLY_MATHJAX = (
    '<script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/3.2.2/es5/tex-svg.min.js">'
    "</script>"
)


def test_plotlys_mathjax_cdn_script_is_removed_and_the_chart_kept() -> None:
    html = f'<div>{PLOTLY_MATHJAX}<div id="chart"></div><script>Plotly.newPlot("chart")</script>'
    cleaned = strip_remote_scripts(html)
    assert "cdnjs" not in cleaned
    assert '<div id="chart"></div><script>Plotly.newPlot("chart")</script>' in cleaned


def test_local_and_data_scripts_are_kept() -> None:
    html = (
        '<script src="data:text/javascript;base64,AAAA"></script><script src="embed.js"></script>'
    )
    assert strip_remote_scripts(html) == html
    assert remote_references(html) == []


def test_every_kind_of_web_reference_is_found() -> None:
    page = "\n".join(
        [
            '<script src="https://cdn.example/require.js"></script>',
            "<script src='//cdn.example/a.js'></script>",
            "<SCRIPT SRC=http://cdn.example/b.js></SCRIPT>",
            '<link rel="stylesheet" href="https://fonts.example/x.css">',
            "@import url('https://fonts.example/y.css');",
            '{"html": "<script src=\\"https://cdn.example/in-json.js\\"></script>"}',
        ]
    )
    assert len(remote_references(page)) == 6


def test_a_commented_out_css_import_is_not_a_reference() -> None:
    page = "/* @import url('https://fonts.googleapis.com/css?family=Roboto+Mono'); */"
    assert remote_references(page) == []


_HOSTS = st.from_regex(r"[a-z]{1,12}\.[a-z]{2,4}", fullmatch=True)
_TEXT = st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=40)


@given(
    before=_TEXT,
    after=_TEXT,
    host=_HOSTS,
    scheme=st.sampled_from(["https:", "http:", ""]),
    quote=st.sampled_from(['"', "'"]),
)
def test_stripping_leaves_no_remote_script_and_keeps_the_text_around(
    before: str, after: str, host: str, scheme: str, quote: str
) -> None:
    tag = f"<script src={quote}{scheme}//{host}/lib.js{quote}></script>"
    cleaned = strip_remote_scripts(before + tag + after)
    assert cleaned == before + after
    assert remote_references(cleaned) == []
