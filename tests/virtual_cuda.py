"""A virtual CUDA device on a CPU-only torch, for finding device bugs without a GPU.

`enable()` makes `torch.cuda.is_available()` true. A tensor sent to "cuda" (`.to`, `.cuda()`, a factory
with `device="cuda"`, a module's `.to`) becomes an `OnDevice` tensor: real CPU memory whose `.device`
reads cuda:0. What a real GPU refuses raises `DeviceRuleError` (or TypeError, as torch does):

- an op mixing an `OnDevice` tensor with a CPU tensor of one dimension or more (CPU scalars are allowed,
  as on CUDA; so are copies, moves and basic indexing);
- an advanced-indexing assignment (`x[mask] = v`, index_put_) whose values sit on the other device, and a
  CPU tensor indexed by device indices;
- drawing numbers for a device tensor with a CPU `torch.Generator`, or for a CPU tensor with a CUDA one;
- `.numpy()` or `np.asarray` on a device tensor.

It checks devices only, never numerics; it is lenient where CUDA is (indexing a device tensor with CPU
indices) and is not a model of streams, memory or speed.
"""
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_map

CUDA0 = torch.device("cuda", 0)


class DeviceRuleError(RuntimeError):
    """An operation that a real CUDA device would refuse."""


_PlainGenerator = torch._C.Generator


class CudaGenerator(_PlainGenerator):
    """A generator created with device="cuda": it draws on the CPU but says cuda:0."""

    @property
    def device(self):
        return CUDA0


class _GeneratorType(type):
    """torch.Generator stand-in: builds a CudaGenerator for a CUDA device, a plain one otherwise."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _PlainGenerator)

    def __call__(cls, device="cpu"):
        return CudaGenerator() if _wants_cuda(device) else _PlainGenerator()


class Generator(metaclass=_GeneratorType):
    pass


def _wants_cuda(device) -> bool:
    if device is None:
        return False
    if isinstance(device, int):
        return True  # a bare index names a CUDA device
    try:
        return torch.device(device).type == "cuda"
    except (RuntimeError, TypeError):
        return False


def _tensors(args, kwargs) -> list:
    """The tensors among the arguments, one level into lists and tuples (as torch's ops take them): faster than a
    full pytree flatten, which every op would pay."""
    found = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, torch.Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(t for t in a if isinstance(t, torch.Tensor))
    return found


def _wrap(out):
    """Results of a device op live on the device."""
    if isinstance(out, torch.Tensor):
        return _as_device(out)
    return tree_map(_as_device, out)


def _as_plain(x):
    if isinstance(x, OnDevice):
        with torch._C.DisableTorchFunctionSubclass():
            return x.as_subclass(torch.Tensor)
    return x


def _as_device(x):
    if isinstance(x, torch.Tensor) and not isinstance(x, OnDevice):
        with torch._C.DisableTorchFunctionSubclass():
            return x.as_subclass(OnDevice)
    return x


def _target(name, args, kwargs):
    """Where a .to / .cuda / .cpu call sends its tensor: "cuda", "cpu", or None (device unchanged)."""
    if name == "cuda":
        return "cuda"
    if name == "cpu":
        return "cpu"
    rest = args[1:]
    if rest and isinstance(rest[0], torch.Tensor):
        return "cuda" if isinstance(rest[0], OnDevice) else "cpu"
    device = torch._C._nn._parse_to(*rest, **kwargs)[0]
    return None if device is None else ("cuda" if device.type == "cuda" else "cpu")


def _dtype_of_to(args, kwargs):
    rest = args[1:]
    if rest and isinstance(rest[0], torch.Tensor):
        return rest[0].dtype
    return torch._C._nn._parse_to(*rest, **kwargs)[1]


def _check_generator(name, kwargs, on_device: bool):
    gen = kwargs.get("generator")
    if not isinstance(gen, _PlainGenerator):
        return
    gen_cuda = isinstance(gen, CudaGenerator)
    if on_device and not gen_cuda:
        raise DeviceRuleError(f"{name}: expected a 'cuda' device type for generator but found 'cpu'")
    if not on_device and gen_cuda:
        raise DeviceRuleError(f"{name}: expected a 'cpu' device type for generator but found 'cuda'")


# methods whose CPU and device arguments may mix on a real GPU, or that touch no data
_MAY_MIX = {"__getitem__", "__setitem__", "copy_", "__get__", "__set__", "backward", "detach", "requires_grad_",
            "__repr__", "__format__", "__str__", "size", "dim", "numel", "item", "tolist", "__len__", "__bool__",
            "__float__", "__int__", "__index__", "__hash__", "data_ptr", "__reduce_ex__", "__deepcopy__"}
_MAY_MIX_PREFIX = ("_foreach", "_fused", "_has", "is_", "_is", "set_", "__torch")


def _array_index(i) -> bool:
    "An index that makes advanced indexing: a tensor of one dimension or more or of booleans, a list, an array."
    if isinstance(i, torch.Tensor):
        return i.dim() > 0 or i.dtype == torch.bool
    return isinstance(i, list) or (type(i).__module__ == "numpy" and getattr(i, "ndim", 0) > 0)


def _check_indexing(name: str, args) -> None:
    """Indexing rules: a CPU tensor cannot be indexed by device indices; an advanced-indexing assignment
    (index_put_) takes values on the tensor's own device, CPU scalars aside. Basic indexing (ints, slices)
    copies, which may cross devices."""
    if name not in ("__getitem__", "__setitem__") or len(args) < 2:
        return
    target, index = args[0], args[1]
    items = index if isinstance(index, tuple) else (index,)
    on_device = isinstance(target, OnDevice)
    if not on_device and any(isinstance(i, OnDevice) and _array_index(i) for i in items):
        raise DeviceRuleError(f"{name}: indices should be either on cpu or on the same device as the indexed "
                              "tensor (cpu)")
    if name == "__setitem__" and len(args) > 2 and any(_array_index(i) for i in items):
        value = args[2]
        if isinstance(value, torch.Tensor) and value.dim() > 0 and isinstance(value, OnDevice) != on_device:
            where = ("cuda:0", "cpu") if on_device else ("cpu", "cuda:0")
            raise DeviceRuleError(f"index_put_: expected all tensors to be on the same device, but found at least "
                                  f"two devices, {where[0]} and {where[1]} (values of shape {tuple(value.shape)})")


class OnDevice(torch.Tensor):
    """A CPU tensor that reports cuda:0 and refuses to meet CPU tensors."""

    @property
    def device(self):
        return CUDA0

    @property
    def is_cuda(self):
        return True

    @property
    def grad(self):
        g = torch._C.TensorBase.grad.__get__(self)
        return _as_device(g) if g is not None else None

    @grad.setter
    def grad(self, value):
        torch._C.TensorBase.grad.__set__(self, value)

    def numpy(self, *args, **kwargs):
        raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                        "to host memory first. [virtual cuda]")

    def __array__(self, *args, **kwargs):
        self.numpy()

    def __reduce_ex__(self, protocol):  # pickles (multiprocessing, deepcopy of modules) keep the device
        return (_rebuild, (_as_plain(self).detach().clone(), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            with torch.no_grad():
                copy = _as_device(_as_plain(self).clone())
            copy.requires_grad_(self.requires_grad)
            if getattr(self, "_is_param", False):
                copy._is_param = True
            memo[id(self)] = copy
        return memo[id(self)]

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        tensors = _tensors(args, kwargs)
        on_device = any(isinstance(t, OnDevice) for t in tensors)
        if name in ("to", "cuda", "cpu") and args and isinstance(args[0], OnDevice):
            where = _target(name, args, kwargs)
            plain = _as_plain(args[0])
            dtype = _dtype_of_to(args, kwargs) if name == "to" else None
            with torch._C.DisableTorchFunctionSubclass():
                moved = plain.to(dtype) if dtype is not None else plain
                if where == "cpu":
                    return moved.clone() if moved is plain else moved
            return args[0] if moved is plain else _as_device(moved)
        if name in ("item", "tolist"):
            with torch._C.DisableTorchFunctionSubclass():
                return func(*tree_map(_as_plain, args), **kwargs)
        if on_device:
            _check_generator(name, kwargs, True)
            _check_indexing(name, args)
            if name not in _MAY_MIX and not name.startswith(_MAY_MIX_PREFIX):
                cpu = [t for t in tensors if not isinstance(t, OnDevice) and t.dim() > 0]
                if cpu:
                    raise DeviceRuleError(
                        f"{name}: expected all tensors to be on the same device, but found at least two devices, "
                        f"cuda:0 and cpu (a CPU tensor of shape {tuple(cpu[0].shape)})")
        lands_on_device = on_device
        if kwargs.get("device") is not None:  # an explicit device decides where the result lives (full_like)
            lands_on_device = _wants_cuda(kwargs["device"])
            kwargs = {**kwargs, "device": "cpu"}
            args = tree_map(_as_plain, args)
        with torch._C.DisableTorchFunctionSubclass():
            out = func(*args, **kwargs)
        if name in ("__setitem__", "copy_") or (name.endswith("_") and args and out is args[0]):
            return out
        return _wrap(out) if lands_on_device else out


def _rebuild(plain, requires_grad):
    return _as_device(plain).requires_grad_(requires_grad)


_FACTORIES_FROM_DATA = ("tensor", "as_tensor", "asarray")
MOVES = {"count": 0}  # tensors sent to the device or made there: 0 means the code never used its device


class VirtualCudaMode(TorchFunctionMode):
    """Sends plain tensors to the virtual device and runs device="cuda" factories on the CPU."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        first = args[0] if args else None
        if name in ("to", "cuda") and isinstance(first, torch.Tensor) and not isinstance(first, OnDevice) \
                and _target(name, args, kwargs) == "cuda":
            dtype = _dtype_of_to(args, kwargs) if name == "to" else None
            MOVES["count"] += 1
            with torch._C.DisableTorchFunctionSubclass():
                moved = first.to(dtype) if dtype is not None else first
                return _as_device(moved.clone() if moved is first else moved)
        device = kwargs.get("device")
        if _wants_cuda(device):
            MOVES["count"] += 1
            _check_generator(name, kwargs, True)
            with torch._C.DisableTorchFunctionSubclass():
                out = func(*tree_map(_as_plain, args), **{**kwargs, "device": "cpu"})
            return tree_map(_as_device, out)
        if device is not None and name in _FACTORIES_FROM_DATA:  # torch.tensor(device_tensor, device="cpu")
            with torch._C.DisableTorchFunctionSubclass():
                return func(*tree_map(_as_plain, args), **kwargs)
        if device is not None or name in ("randn", "rand", "randint", "randperm", "normal", "bernoulli",
                                          "multinomial", "uniform_", "normal_", "bernoulli_", "random_",
                                          "exponential_", "rand_like", "randn_like", "randint_like"):
            on_device = any(isinstance(t, OnDevice) for t in _tensors(args, kwargs))
            _check_generator(name, kwargs, on_device)
        return func(*args, **kwargs)


_state = {}


def _noop(*args, **kwargs):
    return None


def enable() -> None:
    """Install the virtual CUDA for the rest of the process (tests only: there is no way back)."""
    if _state:
        return
    import torch._dynamo  # noqa: F401  (built before the patches: it indexes torch.cuda's functions once)
    torch.__future__.set_overwrite_module_params_on_conversion(True)  # module.to("cuda") swaps the parameters
    cuda = torch.cuda
    rng = {}
    patches = {
        "_lazy_init": _noop, "is_available": lambda: True, "device_count": lambda: 1,
        "is_initialized": lambda: False, "synchronize": _noop, "get_device_name": lambda *a, **k: "virtual cuda",
        "reset_peak_memory_stats": _noop, "memory_allocated": lambda *a, **k: 0,
        "max_memory_allocated": lambda *a, **k: 0, "empty_cache": _noop, "current_device": lambda: 0,
        "manual_seed": _noop, "manual_seed_all": _noop,
        "get_rng_state": lambda device="cuda": rng.get("state", torch.zeros(16, dtype=torch.uint8)),
        "set_rng_state": lambda state, device="cuda": rng.__setitem__("state", state),
    }
    for attr, value in patches.items():
        setattr(cuda, attr, value if value is not _noop else (lambda *a, **k: None))  # one object each
    torch.Generator = Generator
    plain_grad = torch.autograd.grad

    def grad(outputs, inputs, *args, **kwargs):  # gradients of device tensors stay on the device
        res = plain_grad(outputs, inputs, *args, **kwargs)
        ins = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
        return tuple(_as_device(r) if r is not None and isinstance(i, OnDevice) else r for r, i in zip(res, ins))

    torch.autograd.grad = grad
    mode = VirtualCudaMode()
    mode.__enter__()
    _state["mode"] = mode
