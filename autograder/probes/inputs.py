"""Inputs from plain, JSON-able specs, so the worker and the grader build bit-identical tensors."""
import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "bool": torch.bool}


def _randn(spec: dict) -> torch.Tensor:
    """Seeded standard normal tensor, optionally scaled, with positions >= resample["from"] redrawn."""
    dtype = DTYPES[spec.get("dtype", "float32")]
    tensor = torch.randn(spec["randn"], generator=torch.Generator().manual_seed(spec["seed"]), dtype=dtype)
    tensor = tensor * spec.get("scale", 1.0)
    if "resample" in spec:  # same tensor, but the later positions along one axis drawn again
        axis, start, seed = spec["resample"]["axis"], spec["resample"]["from"], spec["resample"]["seed"]
        tail = tensor.narrow(axis, start, tensor.shape[axis] - start)
        tail.copy_(torch.randn(tail.shape, generator=torch.Generator().manual_seed(seed), dtype=dtype))
    return tensor


def make(spec: object) -> object:
    """The Python value a spec describes; anything that is not a tagged dict stands for itself."""
    if isinstance(spec, dict):
        if "randn" in spec:
            return _randn(spec)
        if "tensor" in spec:
            return torch.tensor(spec["tensor"], dtype=DTYPES[spec.get("dtype", "float32")])
        if "randint" in spec:
            generator = torch.Generator().manual_seed(spec["seed"])
            return torch.randint(spec["high"], spec["randint"], generator=generator)
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
