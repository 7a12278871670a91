"""Inputs from plain, JSON-able specs, so the worker and the grader build bit-identical tensors."""
import torch

DTYPES = {name: getattr(torch, name) for name in ("float16", "bfloat16", "float32", "float64", "int64", "bool")}


def _draw(spec: dict, shape: list[int], seed: int) -> torch.Tensor:
    """Seeded standard normals (scaled), or uniform integers below spec["high"] for a randint spec."""
    generator = torch.Generator().manual_seed(seed)
    if "randint" in spec:
        return torch.randint(spec["high"], shape, generator=generator)
    return torch.randn(shape, generator=generator, dtype=DTYPES[spec.get("dtype", "float32")]) * spec.get("scale", 1.0)


def _random(spec: dict) -> torch.Tensor:
    """A seeded random tensor, with positions >= resample["from"] along resample["axis"] drawn again."""
    tensor = _draw(spec, spec.get("randn", spec.get("randint")), spec["seed"])
    if "resample" in spec:  # the same tensor, but its later positions along one axis drawn again
        axis, start = spec["resample"]["axis"], spec["resample"]["from"]
        tail = tensor.narrow(axis, start, tensor.shape[axis] - start)
        tail.copy_(_draw(spec, list(tail.shape), spec["resample"]["seed"]))
    return tensor


def make(spec: object) -> object:
    """The Python value a spec describes; anything that is not a tagged dict stands for itself."""
    if isinstance(spec, dict):
        if "randn" in spec or "randint" in spec:
            return _random(spec)
        if "tensor" in spec:
            return torch.tensor(spec["tensor"], dtype=DTYPES[spec.get("dtype", "float32")])
        if "bools" in spec:
            generator = torch.Generator().manual_seed(spec["seed"])
            return torch.rand(spec["bools"], generator=generator) < spec.get("p", 0.5)
        if "generator" in spec:
            return torch.Generator().manual_seed(spec["generator"])
        if "dtype" in spec and len(spec) == 1:
            return DTYPES[spec["dtype"]]
        return {key: make(value) for key, value in spec.items()}
    if isinstance(spec, list):
        return [make(item) for item in spec]
    return spec


def describe(spec: object) -> str:
    """Short human description of a spec: `float64 (2, 3, 4)`, `5`, `[64, 128]`."""
    if isinstance(spec, dict):
        for key in ("randn", "bools", "randint"):
            if key in spec:
                kind = {"randn": spec.get("dtype", "float32"), "bools": "bool", "randint": "int64"}[key]
                return f"{kind} {tuple(spec[key])}"
        if "tensor" in spec:
            return f"{spec['tensor']}"
        if "generator" in spec:
            return f"Generator(seed={spec['generator']})"
        if "dtype" in spec:
            return f"torch.{spec['dtype']}"
    return repr(spec)
