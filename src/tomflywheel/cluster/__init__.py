"""Running work on a Ray cluster: start-up and shutdown, blocks through Ray Data.

Ray is optional (``pip install tomflywheel[ray]``): nothing here imports it until a stage asks
for the ``ray`` executor. The package knows no ToM; the stages say what a block is.
"""

from tomflywheel.cluster._blocks import BlockFn, group_rows, map_blocks
from tomflywheel.cluster._runtime import INSTALL_HINT, import_ray, ray_session

__all__ = ["INSTALL_HINT", "BlockFn", "group_rows", "import_ray", "map_blocks", "ray_session"]
