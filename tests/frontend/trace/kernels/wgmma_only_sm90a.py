"""A compile script whose kernel needs sm_90a (it builds a Hopper wgmma tiled MMA): traced under another arch the
DSL refuses it ("expects arch to be sm_90a"). For cuteverify's capture error test."""
import cutlass
import cutlass.cute as cute
import cutlass.utils.hopper_helpers as sm90_utils

from cuteverify.frontend.trace.fakes import fake_stream, fake_tensor


@cute.jit
def wgmma_only(mA: cute.Tensor, stream):
    tiled_mma = sm90_utils.make_trivial_tiled_mma(
        cutlass.Float16, cutlass.Float16, cute.nvgpu.OperandMajorMode.K, cute.nvgpu.OperandMajorMode.K,
        cutlass.Float32, (1, 1, 1), (64, 128))
    cute.printf("%d\n", cute.size(tiled_mma.tv_layout_C))


if __name__ == "__main__":
    cute.compile(wgmma_only, fake_tensor(cutlass.Float16, ("m", "k"), major=1), fake_stream())
