//! The default RAG prompt: answer the question and name the documents relied on.

use crate::dataset::rag::RagCase;
use crate::provider::ChatMessage;

/// The default system prompt. It asks for the document file names explicitly,
/// since spec 002's citation metric looks for them in the answer.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You answer questions about a documentation set. \
Answer concisely and factually, in the language of the question. \
Then name the documents you relied on by their file names, on a last line such as \
`Sources: 01_overview.md, 02_setup.md`. If you do not know, say so.";

/// The messages sent for one case: the system prompt (if any) and the question.
pub fn rag_messages(system_prompt: &str, case: &RagCase) -> Vec<ChatMessage> {
    let mut messages = Vec::with_capacity(2);
    if !system_prompt.trim().is_empty() {
        messages.push(ChatMessage::new("system", system_prompt));
    }
    messages.push(ChatMessage::new("user", case.q.clone()));
    messages
}
