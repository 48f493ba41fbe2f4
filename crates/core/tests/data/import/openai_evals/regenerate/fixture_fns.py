# The upstream OpenAIChatCompletionFn does not take the `registry` kwarg that
# Registry.make_completion_fn passes to registry-declared completion fns, and
# evals' is_chat_model() does not know "gpt-4o-mini"; this only drops the kwarg.
from evals.completion_fns.openai import OpenAIChatCompletionFn


class ChatCompletionFn(OpenAIChatCompletionFn):
    def __init__(self, registry=None, **kwargs):
        super().__init__(**kwargs)
