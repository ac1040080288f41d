import { addMessages } from '../../i18n';
import * as intel from '../../messages/intel';

// Evaluated with the first module of a chunk that imports it, before any of its pages renders: the
// messages of exploit intelligence, SLAs and dry runs come with the pages that show them.
addMessages(intel);
