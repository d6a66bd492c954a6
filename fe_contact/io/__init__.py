"""Output and model files: VTK series (``vtk`` and the blocks of a frame: ``blocks``,
``structure_blocks``, ``body_blocks``, ``contact_blocks``, ``frames``), figures (``plots`` and
its families), pictures of a series (``render``, ``scene``), model files (``model_file``)."""
