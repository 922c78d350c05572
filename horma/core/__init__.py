"""horma's core: every on-disk format, in the standard library only.

The host and the sandbox helpers (``hsearch``, ``hindex``) import this very
package: a sandbox gets it mounted at ``/opt/horma/lib/horma/core`` (a
namespace package there, so nothing else of horma is imported), the local
backend reaches it through the installed package. Nothing here may import
outside the standard library or the rest of horma.

- ``layout``: folder and file names, how a helper finds its workspace and index;
- ``text``: words, stop words, the one token count, the raw line ``ID | time | actor: text``;
- ``notes``: note kind, front matter as the index reads it, citations ``(raw/<seg>/units.log:N)``;
- ``dates``: the dates a query names;
- ``index_schema``: the SQLite FTS5 index's tables, version and ``connect``;
- ``index``: its writer (``SearchIndex``: segments, notes, vectors, sync);
- ``search``: the ranking ``hsearch`` prints.
"""
