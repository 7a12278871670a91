"""Record calls of the PyTorch functions a question asks the student not to use."""
import functools
import importlib

TARGETS = {
    "F.scaled_dot_product_attention": [("torch.nn.functional", "scaled_dot_product_attention"), ("torch._C._nn", "scaled_dot_product_attention")],
    "nn.MultiheadAttention": [("torch.nn", "MultiheadAttention.forward"), ("torch.nn.functional", "multi_head_attention_forward")],
    "torch.autograd": [
        ("torch.autograd", "grad"),
        ("torch.autograd", "backward"),
        ("torch", "Tensor.backward"),
        ("torch.autograd.functional", "jacobian"),
        ("torch.autograd.functional", "vjp"),
    ],
}


def _wrap(original: object, label: str, seen: list[str]) -> object:
    """original, recording label in seen at each call."""
    @functools.wraps(original)
    def spy(*args, **kwargs):
        seen.append(label)
        return original(*args, **kwargs)

    del spy.__wrapped__  # functools.wraps would hand the unspied original to anyone who asks
    return spy


def install(labels: list[str]) -> list[str]:
    """Wrap every target of the given labels; return the list each call appends its label to."""
    seen: list[str] = []
    for label in labels:
        for module_name, attribute in TARGETS[label]:
            owner = importlib.import_module(module_name)
            *path, name = attribute.split(".")
            for part in path:
                owner = getattr(owner, part)
            setattr(owner, name, _wrap(getattr(owner, name), label, seen))
    return seen
