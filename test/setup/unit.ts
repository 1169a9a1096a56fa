// Every unit test file (*.test.ts) starts with the guard on: see test/support/unit-guard.ts.
import { guardUnitTests } from '../support/unit-guard';

guardUnitTests(true);
