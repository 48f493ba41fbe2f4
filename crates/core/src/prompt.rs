//! The default RAG prompt: answer the question and name the documents relied
//! on. The RAG check sends it through the built-in `rag_qa` template
//! (`task::builtin::rag_qa`): the system prompt, then the question.

/// The default system prompt. It asks for the document file names explicitly,
/// since spec 002's citation metric looks for them in the answer.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You answer questions about a documentation set. \
Answer concisely and factually, in the language of the question. \
Then name the documents you relied on by their file names, on a last line such as \
`Sources: 01_overview.md, 02_setup.md`. If you do not know, say so.";
