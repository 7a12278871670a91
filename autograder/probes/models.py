"""Probes that build the student's nn.Module classes, load known weights, run them, or train them."""
import torch

from .calls import student_function
from .inputs import DTYPES, make


def structure(model: torch.nn.Module) -> dict:
    """Names and shapes of parameters and buffers, and the class of every direct child."""
    return {
        "class": type(model).__name__,
        "parameters": {name: list(p.shape) for name, p in model.named_parameters()},
        "buffers": {name: [list(b.shape), str(b.dtype)] for name, b in model.named_buffers()},
        "children": {name: type(child).__name__ for name, child in model.named_children()},
    }


def module_probe(module: object, params: dict) -> dict:
    """Construct params["cls"], optionally load weights and run forward; report structure and output."""
    cls = student_function(module, params["cls"])
    torch.manual_seed(0)
    model = cls(*params.get("init", []), **params.get("init_kwargs", {}))
    model = model.to(DTYPES[params.get("dtype", "float32")])
    with torch.no_grad():
        for name, spec in params.get("load", {}).items():
            model.get_parameter(name).copy_(make(spec))
    result = {"structure": structure(model)}
    if "forward" in params:
        inputs = [make(spec) for spec in params["forward"]]
        result["out"] = model(*inputs, **params.get("forward_kwargs", {}))
    if "forward_alt" in params:  # a second input, to compare outputs position by position
        result["out_alt"] = model(*[make(spec) for spec in params["forward_alt"]], **params.get("forward_kwargs", {}))
    return result


def train_probe(module: object, params: dict) -> dict:
    """Run train_copy_task, then the trained model on a held-out batch drawn here, not by the student."""
    train = student_function(module, "train_copy_task")
    model, losses = train(**params["kwargs"])
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"train_copy_task should return (model, losses); its first item is a {type(model).__name__}")
    x = make(params["eval_tokens"])  # (B, T) int64
    model.eval()
    with torch.no_grad():
        logits, weights = model(x, return_weights=True)
    return {"losses": losses, "logits": logits, "weights": weights, "structure": structure(model)}
