"""Bad inputs of dl4nlp.ewt (the CoNLL-U reader)."""

from bad_inputs.harness import cases, exempt, scratch, semantic
from dl4nlp.ewt import read_conllu

exempt("a record returned by read_conllu", "dl4nlp.ewt.Sentence")


def _file(text: str):
    path = scratch() / "bad.conllu"
    path.write_text(text, encoding="utf-8")
    return path


@cases("dl4nlp.ewt.read_conllu")
def _():
    yield "path: a number", lambda: read_conllu(3), ("path", "int")
    yield "path: a missing file", lambda: read_conllu(scratch() / "missing.conllu"), ("path", "missing.conllu")
    yield "path: a folder", lambda: read_conllu(scratch()), ("path", "folder")
    yield semantic(
        "path: a file of space-separated columns",
        lambda: read_conllu(_file("# sent_id = a-1\n1 Hi hi INTJ UH _ 0 root _ _\n\n")),
        ("10 tab-separated columns", "1"),
    )
    yield semantic(
        "path: a sentence without sent_id",
        lambda: read_conllu(_file("1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n")),
        ("sent_id", "line 2"),
    )
    yield semantic("path: an empty file", lambda: read_conllu(_file("")), ("CoNLL-U", "none"))
