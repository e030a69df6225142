"""benchmarks/compare_programs.py's canonical form of an HLO program: value names and source locations do not
matter, the operands' wiring does."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from compare_programs import canonical  # noqa: E402

HLO = """HloModule jit_advance, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY %main.12 (Arg_0.1: f32[4]) -> f32[4] {
  %Arg_0.1 = f32[4]{0} parameter(0), metadata={op_name="x" source_file="/a/engine.py" source_line=10}
  %constant.2 = f32[] constant(2)
  %broadcast.3 = f32[4]{0} broadcast(%constant.2), dimensions={}
  %subtract.4 = f32[4]{0} subtract(%Arg_0.1, %broadcast.3), metadata={op_name="y" source_file="/a/engine.py" source_line=11}
  ROOT %add.5 = f32[4]{0} add(%subtract.4, %Arg_0.1), stack_frame_id=3
}

FileNames
1 "/a/engine.py"
"""


def test_names_and_locations_do_not_matter():
    renamed = (HLO.replace("%Arg_0.1", "%Arg_0.7").replace("%subtract.4", "%subtract.19")
               .replace("/a/engine.py", "/b/jaxbandit/engine.py").replace("stack_frame_id=3", "stack_frame_id=8"))
    assert canonical(renamed) == canonical(HLO)


def test_wiring_and_constants_do():
    swapped = HLO.replace("subtract(%Arg_0.1, %broadcast.3)", "subtract(%broadcast.3, %Arg_0.1)")
    assert canonical(swapped) != canonical(HLO)
    assert canonical(HLO.replace("constant(2)", "constant(3)")) != canonical(HLO)
