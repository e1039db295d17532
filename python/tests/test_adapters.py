"""The LlamaIndex and LangChain adapters, against the installed frameworks."""

import pytest

from mentor_context import Assembler, MentorContextError

PLAN_B = "Plan B costs 12 EUR per seat and month."
PLAN_A = "Plan A is free for up to three seats."

# What both adapters must turn their documents into.
EXPECTED_RESULTS = [
    {"content": PLAN_B, "score": 0.9, "sourceUrl": "https://x.example/prices",
     "title": "Prices", "metadata": {"page": "3", "lang": "en"}},
    {"content": PLAN_A, "score": 0.4, "sourceUrl": "https://x.example/plans"},
]


def test_llama_index_nodes_become_the_report_of_their_results():
    schema = pytest.importorskip("llama_index.core.schema")
    from mentor_context.llama_index import assemble_nodes, results_from_nodes

    nodes = [
        schema.NodeWithScore(node=schema.TextNode(
            text=PLAN_B, metadata={"url": "https://x.example/prices", "title": "Prices",
                                   "page": 3, "lang": "en"}), score=0.9),
        schema.NodeWithScore(node=schema.TextNode(
            text=PLAN_A, metadata={"file_path": "https://x.example/plans"}), score=0.4),
    ]
    assert results_from_nodes(nodes) == EXPECTED_RESULTS
    assembler = Assembler(300)
    report = assemble_nodes(assembler, nodes)
    assert report == assembler.assemble(EXPECTED_RESULTS)
    # The node's text once, not repeated with its metadata (MetadataMode.NONE).
    assert report["context"].count("page: 3") == 1 and PLAN_B in report["context"]
    assert [c["sourceUrl"] for c in report["citations"]] == [
        "https://x.example/prices", "https://x.example/plans"]

    nodes[1].score = None
    with pytest.raises(MentorContextError, match=r"^nodes\[1\]: no score"):
        assemble_nodes(assembler, nodes)


def test_langchain_documents_become_the_report_of_their_results():
    documents = pytest.importorskip("langchain_core.documents")
    from mentor_context.langchain import assemble_documents, results_from_documents

    docs = [
        documents.Document(page_content=PLAN_B, metadata={
            "source": "https://x.example/prices", "title": "Prices", "score": 0.9, "page": 3,
            "lang": "en"}),
        documents.Document(page_content=PLAN_A, metadata={
            "url": "https://x.example/plans", "score": 0.4}),
    ]
    assert results_from_documents(docs) == EXPECTED_RESULTS
    assembler = Assembler(300)
    assert assemble_documents(assembler, docs) == assembler.assemble(EXPECTED_RESULTS)
    # The score leaves the metadata; the caller's documents are not changed.
    assert docs[0].metadata["score"] == 0.9

    docs[0].metadata["relevance"] = docs[0].metadata.pop("score")
    with pytest.raises(MentorContextError, match=r"^documents\[0\]: no score"):
        assemble_documents(assembler, docs)
    assert assemble_documents(assembler, docs[:1], score_key="relevance")["citations"]
