// Every integration test file (*.integration.test.ts) starts with the guard off: see test/support/unit-guard.ts.
import { guardUnitTests } from '../support/unit-guard';

guardUnitTests(false);
