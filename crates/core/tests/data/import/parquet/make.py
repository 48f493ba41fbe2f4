"""Makes capitals.parquet with Hugging Face `datasets` (the library that writes
the Hub's Parquet files): six rows of a question-answering dataset with an
integer id, a list column and a nested column.

    pip install datasets==5.2.0 && python3 make.py  (writes snappy, as the Hub does, and a zstd copy)
"""
import datasets

rows = {
    "id": [0, 1, 2, 3, 4, 5],
    "question": [
        "What is the capital of France?",
        "What is the capital of Japan?",
        "What is the capital of Canada?",
        "What is the capital of Australia?",
        "What is the capital of Brazil?",
        "What is the capital of Italy?",
    ],
    "answer": ["Paris", "Tokyo", "Ottawa", "Canberra", "Brasília", "Rome"],
    "aliases": [["Paris"], ["Tokyo", "Tōkyō"], ["Ottawa"], ["Canberra"], ["Brasília", "Brasilia"], ["Rome", "Roma"]],
    "meta": [{"continent": c, "difficulty": d} for c, d in [
        ("Europe", 1), ("Asia", 1), ("America", 2), ("Oceania", 3), ("America", 2), ("Europe", 1)]],
}
ds = datasets.Dataset.from_dict(rows)
ds.to_parquet("capitals.parquet")
# A zstd copy (pyarrow, which `datasets` writes with; the Hub uses snappy).
import pyarrow.parquet as pq
pq.write_table(ds.data.table, "capitals_zstd.parquet", compression="zstd")
print(datasets.__version__, ds.features)
