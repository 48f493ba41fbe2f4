"""Inspect AI fixture with tool calls (answers scripted by the evalpage mock):
the model calls `add`, reads the result, and answers; t2's first call lacks an
argument, so the tool fails and the model calls again."""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool


@tool
def add():
    async def execute(x: int, y: int):
        """Add two numbers.

        Args:
            x: The first number.
            y: The second number.

        Returns:
            The sum.
        """
        return x + y

    return execute


@task
def import_fixture_tools():
    return Task(
        dataset=[
            Sample(id="t1", input="What is 2 + 3? Use the add tool.", target="5"),
            Sample(id="t2", input="What is 10 + 7? Use the add tool.", target="17"),
        ],
        solver=[use_tools(add()), generate()],
        scorer=match(),
    )
