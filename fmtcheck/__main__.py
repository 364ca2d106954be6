from fmtcheck.cli import main

raise SystemExit(main())
