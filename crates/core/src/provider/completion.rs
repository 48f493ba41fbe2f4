//! The fields of a chat completion that `parse_response` reads, taken from
//! the body in one pass without building its whole JSON tree: the top
//! object's `usage`, `timings` and `evalpage_trace`, `choices[0]`'s
//! `finish_reason` and its message's `content`, `reasoning_content`,
//! `reasoning`, `tool_calls` and `refusal` (each a JSON value, as the body
//! has it; a `null` is read as absent, which is how every reader of these
//! fields takes it). Other keys and choices are checked as JSON and skipped.
//!
//! Only the usual shape is read here: objects where objects belong (never an
//! array standing for one), a first choice with a message. Anything else
//! is `None`, and the caller reads the body as a `Value` to say what is
//! wrong, so an odd body gets the same answer or the same error either way.

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// What `parse_response` reads of a chat completion.
#[derive(Debug)]
pub(super) struct Fields {
    pub usage: Option<Value>,
    pub timings: Option<Value>,
    pub trace: Option<Value>,
    pub finish_reason: Option<Value>,
    pub content: Option<Value>,
    pub reasoning_content: Option<Value>,
    pub reasoning: Option<Value>,
    pub tool_calls: Option<Value>,
    pub refusal: Option<Value>,
}

/// The fields of `body` when it is a chat completion of the usual shape
/// (see the module's documentation); `None` otherwise.
pub(super) fn fields(body: &str) -> Option<Fields> {
    let top: Top = serde_json::from_str(body).ok()?;
    let choice = top.choices?.0?;
    let message = choice.message?;
    Some(Fields {
        usage: top.usage,
        timings: top.timings,
        trace: top.evalpage_trace,
        finish_reason: choice.finish_reason,
        content: message.content,
        reasoning_content: message.reasoning_content,
        reasoning: message.reasoning,
        tool_calls: message.tool_calls,
        refusal: message.refusal,
    })
}

#[derive(Default)]
struct Top {
    choices: Option<FirstChoice>,
    usage: Option<Value>,
    timings: Option<Value>,
    evalpage_trace: Option<Value>,
}

/// `choices`: its first element, the others checked as JSON and skipped.
struct FirstChoice(Option<Choice>);

#[derive(Default)]
struct Choice {
    message: Option<Message>,
    finish_reason: Option<Value>,
}

#[derive(Default)]
struct Message {
    content: Option<Value>,
    reasoning_content: Option<Value>,
    reasoning: Option<Value>,
    tool_calls: Option<Value>,
    refusal: Option<Value>,
}

/// Keys as the body spells them (no allocation; an unknown one is `Other`).
#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Key {
    Choices,
    Usage,
    Timings,
    EvalpageTrace,
    Message,
    FinishReason,
    Content,
    ReasoningContent,
    Reasoning,
    ToolCalls,
    Refusal,
    #[serde(other)]
    Other,
}

/// A JSON object read key by key into `T` (a later duplicate key wins, as
/// in a `Value`); anything but an object is an error.
fn read_object<'de, D, T>(d: D, what: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + ReadField,
{
    struct V<T>(&'static str, std::marker::PhantomData<T>);
    impl<'de, T: Default + ReadField> Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<T, A::Error> {
            let mut out = T::default();
            while let Some(key) = m.next_key::<Key>()? {
                out.read_field(key, &mut m)?;
            }
            Ok(out)
        }
    }
    d.deserialize_map(V(what, std::marker::PhantomData))
}

/// How an object of the usual shape takes one of its keys' values.
trait ReadField {
    fn read_field<'de, A: MapAccess<'de>>(&mut self, key: Key, m: &mut A) -> Result<(), A::Error>;
}

impl ReadField for Top {
    fn read_field<'de, A: MapAccess<'de>>(&mut self, key: Key, m: &mut A) -> Result<(), A::Error> {
        match key {
            Key::Choices => self.choices = Some(m.next_value()?),
            Key::Usage => self.usage = m.next_value()?,
            Key::Timings => self.timings = m.next_value()?,
            Key::EvalpageTrace => self.evalpage_trace = m.next_value()?,
            _ => {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl ReadField for Choice {
    fn read_field<'de, A: MapAccess<'de>>(&mut self, key: Key, m: &mut A) -> Result<(), A::Error> {
        match key {
            Key::Message => self.message = m.next_value()?,
            Key::FinishReason => self.finish_reason = m.next_value()?,
            _ => {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl ReadField for Message {
    fn read_field<'de, A: MapAccess<'de>>(&mut self, key: Key, m: &mut A) -> Result<(), A::Error> {
        let slot = match key {
            Key::Content => &mut self.content,
            Key::ReasoningContent => &mut self.reasoning_content,
            Key::Reasoning => &mut self.reasoning,
            Key::ToolCalls => &mut self.tool_calls,
            Key::Refusal => &mut self.refusal,
            _ => {
                m.next_value::<IgnoredAny>()?;
                return Ok(());
            }
        };
        *slot = m.next_value()?;
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_object(d, "a chat completion object")
    }
}

impl<'de> Deserialize<'de> for Choice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_object(d, "a choice object")
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_object(d, "a message object")
    }
}

impl<'de> Deserialize<'de> for FirstChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FirstChoice;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of choices")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<FirstChoice, A::Error> {
                let first = s.next_element::<Choice>()?;
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(FirstChoice(first))
            }
        }
        d.deserialize_seq(V)
    }
}
