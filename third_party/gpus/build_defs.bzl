"""target_compatible_with values for targets that need a GPU toolkit."""

def cuda_only():
    """Compatible only under --config=cuda."""
    return select({
        "//:cuda_enabled": [],
        "//conditions:default": ["//third_party/gpus:cuda_disabled"],
    })

def rocm_only():
    """Compatible only under --config=rocm."""
    return select({
        "//:rocm_enabled": [],
        "//conditions:default": ["//third_party/gpus:rocm_disabled"],
    })
